# Scripted-event tests of the TIMELY and HPCC state machines, and of the rounding of published rates.
mlnet_add_test(test-cc-timely-hpcc ${CMAKE_SOURCE_DIR}/tests/test-cc-timely.cc ${CMAKE_SOURCE_DIR}/tests/test-cc-hpcc.cc
               ${CMAKE_SOURCE_DIR}/tests/test-cc-hpcc-hops.cc ${CMAKE_SOURCE_DIR}/tests/test-cc-rounding.cc)
target_link_libraries(test-cc-timely-hpcc PRIVATE mlnet::cc)
