# Included from tests/CMakeLists.txt after mlnet_add_test is defined.
if(MLNET_BUILD_TESTS)
  mlnet_add_test(test-roce-wire ${CMAKE_SOURCE_DIR}/tests/test-roce-wire.cc ${CMAKE_SOURCE_DIR}/tests/test-roce-wire-capture.cc
                 ${CMAKE_SOURCE_DIR}/tests/trace-test-util.cc)
  target_link_libraries(test-roce-wire PRIVATE mlnet_roce_wire)
endif()
