# Readers and writers of the HPCC file formats (ns3-modules/roce/formats.cmake).
mlnet_add_test(test-hpcc-config ${CMAKE_SOURCE_DIR}/tests/test-hpcc-config.cc ${CMAKE_SOURCE_DIR}/tests/test-hpcc-files.cc
               ${CMAKE_SOURCE_DIR}/tests/trace-test-util.cc)
target_link_libraries(test-hpcc-config PRIVATE mlnet_roce_formats)
add_dependencies(test-hpcc-config mlnet-topology mlnet-trafficgen)
mlnet_add_test(test-traffic-generation ${CMAKE_SOURCE_DIR}/tests/test-traffic-generation.cc ${CMAKE_SOURCE_DIR}/tests/trace-test-util.cc)
target_link_libraries(test-traffic-generation PRIVATE mlnet_roce_formats)
add_dependencies(test-traffic-generation mlnet-trafficgen mlnet-topology)
mlnet_add_test(test-simai-network ${CMAKE_SOURCE_DIR}/tests/test-simai-network.cc ${CMAKE_SOURCE_DIR}/tests/trace-test-util.cc)
target_link_libraries(test-simai-network PRIVATE mlnet_roce_formats)
