# DCQCN and DCTCP; included from congestion/CMakeLists.txt.
target_sources(mlnet_cc PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dcqcn.cc ${CMAKE_CURRENT_LIST_DIR}/dctcp.cc)
