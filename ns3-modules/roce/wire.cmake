# RoCEv2 wire format and pcap output: plain C++ without ns-3, so the framing is unit-tested on its own.
add_library(mlnet_roce_wire STATIC ${CMAKE_SOURCE_DIR}/ns3-modules/roce/model/wire-format.cc
                                   ${CMAKE_SOURCE_DIR}/ns3-modules/roce/model/pcap-writer.cc)
target_include_directories(mlnet_roce_wire PUBLIC ${CMAKE_SOURCE_DIR}/ns3-modules/roce/model)
target_link_libraries(mlnet_roce_wire PUBLIC mlnet::cc mlnet::util PRIVATE mlnet_warnings)
mlnet_library(mlnet_roce_wire)
