# The language the shipped kernel libraries compile in, set once at the top
# level (enable_language must be called in a directory above every target
# using it): CUDA with nvcc on NVIDIA, HIP through clang on AMD. Each
# problem's library uses the two functions below.
if(KOPT_GPU_PLATFORM STREQUAL "NVIDIA")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  set(KOPT_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures for the shipped kernels")
  set(CMAKE_CUDA_ARCHITECTURES ${KOPT_CUDA_ARCHITECTURES})
  enable_language(CUDA)
  set(KOPT_KERNEL_LANGUAGE CUDA)
else()
  # clang compiles HIP as C++ with -x hip. (CMake's HIP language expects a
  # ROCm install tree under one prefix; Debian's packages spread it over
  # /usr/lib/<triplet>, so the flags are given here instead.)
  set(KOPT_AMD_ARCHITECTURES "gfx906" CACHE STRING "AMD architectures for the shipped kernels")
  set(KOPT_ROCM_DEVICE_LIBS "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode" CACHE PATH "ROCm device library bitcode")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "the AMD kernel library needs clang as the C++ compiler: -DCMAKE_CXX_COMPILER=clang++-15")
  endif()
  set(KOPT_KERNEL_LANGUAGE CXX)
  set(KOPT_HIP_FLAGS -x hip --rocm-path=/usr --rocm-device-lib-path=${KOPT_ROCM_DEVICE_LIBS})
  foreach(arch IN LISTS KOPT_AMD_ARCHITECTURES)
    list(APPEND KOPT_HIP_FLAGS --offload-arch=${arch})
  endforeach()
endif()


# Marks sources (kernels, C API, examples) to compile as kernel code.
function(kopt_kernel_sources)
  set_source_files_properties(${ARGN} PROPERTIES LANGUAGE ${KOPT_KERNEL_LANGUAGE})
endfunction()

# What every problem's static library needs: the shared headers (kernels/common),
# the kernel flags, its version, and the GPU runtime. The archive holds C++
# objects (the API, the host launch code, the GPU runtime's own static part):
# a program linked by the C compiler gets the C++ runtime and libm from
# here, since CMake links such a consumer with its C linker.
function(kopt_kernel_library target version)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/kernels/common)
  target_compile_features(${target} PRIVATE cxx_std_17)
  target_compile_options(${target} PRIVATE ${KOPT_HIP_FLAGS})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON VERSION ${version})
  target_link_libraries(${target} PUBLIC $<$<LINK_LANGUAGE:C>:stdc++> $<$<LINK_LANGUAGE:C>:m>)
  if(KOPT_GPU_PLATFORM STREQUAL "NVIDIA")
    target_link_libraries(${target} PUBLIC CUDA::cudart_static)
  else()
    target_link_libraries(${target} PUBLIC hip::host)
  endif()
endfunction()
