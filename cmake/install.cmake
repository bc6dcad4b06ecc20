# What `cmake --install build --prefix P` puts in place for scenario code outside this tree
# (docs/scenario-scripts.md): shared libraries lib/libmlnet-{cc,astra-core,roce}.so, the headers under
# include/mlnet/ (module headers mlnet/*-module.h beside them), a CMake package (find_package(mlnet CONFIG) gives
# mlnet::roce, mlnet::astra-core and mlnet::cc, and finds Debian's ns-3 for its user), lib/pkgconfig/mlnet.pc and
# the tools in bin/.
#
# The shared libraries hold the objects the static ones are made of (compiled once, position-independent): the
# tools and tests keep linking the static ones, the simulators with link-time optimisation across all of them.
set(MLNET_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mlnet)

# target: the shared library; output: its file name (lib<output>.so); exportName: mlnet::<exportName> when
# installed; ARGN: the static libraries whose objects it holds.
function(mlnet_shared_library target output exportName)
  add_library(${target} SHARED)
  foreach(lib IN LISTS ARGN)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${lib}>)
  endforeach()
  # Installed side by side, the libraries find one another by $ORIGIN: a program's own RUNPATH is not searched
  # for the libraries its libraries need.
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${output} EXPORT_NAME ${exportName} LINKER_LANGUAGE CXX
                                             VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                                             INSTALL_RPATH "$ORIGIN")
  # A symbol no dependency provides is an error here, not in the first program that links the library. The
  # objects' ordinary machine code is linked (-fno-lto): GCC would otherwise optimise the whole library again
  # at link time from their intermediate form, minutes per library, for code the simulators do not run.
  target_link_options(${target} PRIVATE LINKER:--no-undefined $<$<BOOL:${MLNET_LTO_ACTIVE}>:-fno-lto>)
  target_include_directories(${target} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                                                 $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/mlnet>
                                                 $<BUILD_INTERFACE:${MLNET_GENERATED_INCLUDE_DIR}>)
  target_compile_features(${target} INTERFACE cxx_std_17)
endfunction()

mlnet_shared_library(mlnet_cc_shared mlnet-cc cc mlnet_cc)
target_include_directories(mlnet_cc_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/congestion>)

mlnet_shared_library(mlnet_astra_core_shared mlnet-astra-core astra-core mlnet_chakra_proto mlnet_util mlnet_workload
                     mlnet_network mlnet_system mlnet_workload_generator)
target_include_directories(mlnet_astra_core_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/astra-core>
                                                             $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/extern/chakra>)
target_link_libraries(mlnet_astra_core_shared PUBLIC nlohmann_json::nlohmann_json protobuf::libprotobuf
                                              PRIVATE yaml-cpp ZLIB::ZLIB Threads::Threads)

mlnet_shared_library(mlnet_roce_shared mlnet-roce roce mlnet_roce_wire mlnet_roce_formats mlnet_roce)
target_include_directories(mlnet_roce_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/ns3-modules/roce/model>
                                                       $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/ns3-modules/roce/fast-forward>
                                                       $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/ns3-modules/roce/scale-up>
                                                       $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/ns3-modules/roce/helper>)
target_link_libraries(mlnet_roce_shared PUBLIC mlnet_astra_core_shared mlnet_cc_shared mlnet::ns3)

set_target_properties(mlnet_ns3 PROPERTIES EXPORT_NAME ns3)
install(TARGETS mlnet_cc_shared mlnet_astra_core_shared mlnet_roce_shared mlnet_ns3 EXPORT mlnetTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT mlnetTargets NAMESPACE mlnet:: DESTINATION ${MLNET_INSTALL_CMAKEDIR})

# Headers: astra-core's keep their folders (util/, network/, ...), the RoCE model's and the congestion
# controls' lie flat, as they include one another; et_def.pb.h is the trace writer's.
set(include_dir ${CMAKE_INSTALL_INCLUDEDIR}/mlnet)
install(DIRECTORY astra-core/ DESTINATION ${include_dir} FILES_MATCHING PATTERN "*.h" PATTERN tools EXCLUDE)
install(DIRECTORY congestion/ ns3-modules/roce/model/ ns3-modules/roce/fast-forward/ ns3-modules/roce/scale-up/
                  ns3-modules/roce/helper/
        DESTINATION ${include_dir}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${CMAKE_BINARY_DIR}/extern/chakra/et_def.pb.h DESTINATION ${include_dir})
install(DIRECTORY ${MLNET_GENERATED_INCLUDE_DIR}/mlnet/ DESTINATION ${include_dir})

include(CMakePackageConfigHelpers)
configure_package_config_file(cmake/mlnetConfig.cmake.in ${CMAKE_BINARY_DIR}/cmake/mlnetConfig.cmake
                              INSTALL_DESTINATION ${MLNET_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/mlnetConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/mlnetConfig.cmake ${CMAKE_BINARY_DIR}/cmake/mlnetConfigVersion.cmake
        DESTINATION ${MLNET_INSTALL_CMAKEDIR})

# pkg-config finds the prefix from where the file lies, so the prefix given to `cmake --install` is the one used.
file(RELATIVE_PATH MLNET_PC_PREFIX_FROM_PCFILEDIR /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
configure_file(cmake/mlnet.pc.in ${CMAKE_BINARY_DIR}/cmake/mlnet.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/cmake/mlnet.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(TARGETS mlnet-ns3 mlnet-flows mlnet-trafficgen mlnet-tracegen mlnet-check mlnet-analytical mlnet-topology
                mlnet-typeids mlnet-workload mlnet-nccl-tests
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS $<TARGET_FILE:incast-study> DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME mlnet-incast-study)
