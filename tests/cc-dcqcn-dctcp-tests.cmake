# Included from tests/CMakeLists.txt after mlnet_add_test is defined.
mlnet_add_test(test-cc-dcqcn-dctcp ${CMAKE_SOURCE_DIR}/tests/test-cc-dcqcn.cc ${CMAKE_SOURCE_DIR}/tests/test-cc-dctcp.cc
               ${CMAKE_SOURCE_DIR}/tests/test-cc-presets.cc)
target_link_libraries(test-cc-dcqcn-dctcp PRIVATE mlnet::cc)
