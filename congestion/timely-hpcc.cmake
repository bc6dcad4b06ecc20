# TIMELY and HPCC, included by congestion/CMakeLists.txt into the mlnet_cc library.
target_sources(mlnet_cc PRIVATE ${CMAKE_CURRENT_LIST_DIR}/timely.cc ${CMAKE_CURRENT_LIST_DIR}/hpcc.cc)
