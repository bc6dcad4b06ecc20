# File formats of the HPCC-style flow experiments (config.txt and its JSON form, topology and flow files and their
# generator, flow-size CDFs, fct.txt and pfc.txt writers), and of other simulators' network inputs (simai-*: SimAI's
# topology files and SimAI.conf). Pure C++, no ns-3, so the readers are tested without a simulator.
add_library(mlnet_roce_formats STATIC
  ${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper/hpcc-config.cc
  ${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper/hpcc-config-keys.cc
  ${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper/flow-file.cc
  ${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper/flow-size-cdf.cc
  ${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper/flow-generator.cc
  ${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper/result-writers.cc
  ${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper/astra-ns3-inputs.cc
  ${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper/simai-topology.cc
  ${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper/simai-config.cc
)
target_include_directories(mlnet_roce_formats PUBLIC ${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper)
target_link_libraries(mlnet_roce_formats
  PUBLIC mlnet::util mlnet::network
  PRIVATE mlnet_warnings nlohmann_json::nlohmann_json)
mlnet_library(mlnet_roce_formats)
