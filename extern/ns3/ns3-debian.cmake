# Glue for Debian's stock ns-3 3.37 (packages libns3-dev, ns3, libgsl-dev). Its CMake package exports one imported
# target per module (ns3::libcore, ns3::libnetwork, ...) whose interface carries include directories of optional
# features (Python, libxml2) and the bare prefix /usr. We expose a single interface target, mlnet::ns3, that links the
# modules we use; its headers live under /usr/include/ns3, an implicit system include path, so -Werror builds are
# not tripped by warnings in ns-3 itself.
find_package(ns3 3.37 REQUIRED)

set(MLNET_NS3_MODULES core network internet point-to-point applications)

add_library(mlnet_ns3 INTERFACE)
add_library(mlnet::ns3 ALIAS mlnet_ns3)
foreach(module IN LISTS MLNET_NS3_MODULES)
  if(NOT TARGET ns3::lib${module})
    message(FATAL_ERROR "Debian's ns-3 package does not provide module '${module}' (target ns3::lib${module}); "
                        "run scripts/install-deps")
  endif()
  target_link_libraries(mlnet_ns3 INTERFACE ns3::lib${module})
endforeach()
message(STATUS "ns-3 ${ns3_VERSION} found: modules ${MLNET_NS3_MODULES}")
