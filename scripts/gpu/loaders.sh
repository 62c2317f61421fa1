# The GPU machine's loaders, for scripts/gpu-check.sh and scripts/gpu-alternate.sh (sourced;
# defines functions only). The machine has the NVIDIA drivers but no package registry and no
# OpenCL or Vulkan loader: .gl/ carries Debian 12's .debs of them (see gpu-check.sh's header).

# Unpacks the carried loaders into / (device-notes.md). NVIDIA's Vulkan ICD (libGLX_nvidia.so.0)
# also needs libglvnd's dispatch libraries, which the machine lacks: without them the loader
# reports "Could not get 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr'" and vkCreateInstance
# fails with VK_ERROR_INCOMPATIBLE_DRIVER.
install_gpu_loaders() {
  local f d lib
  for f in .gl/ocl-icd-libopencl1*.deb .gl/clinfo*.deb .gl/libvulkan1_*.deb .gl/libglvnd0_*.deb \
           .gl/libegl1_*.deb .gl/libgl1_*.deb .gl/libglx0_*.deb .gl/libopengl0_*.deb .gl/libgles2_*.deb; do
    [ -e "$f" ] && dpkg -x "$f" /
  done
  # CMake's FindOpenCL and FindVulkan want the development names libOpenCL.so, libvulkan.so.
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
    for lib in libOpenCL libvulkan; do
      if [ -e "$d/$lib.so.1" ] && [ ! -e "$d/$lib.so" ]; then ln -s "$lib.so.1" "$d/$lib.so"; fi
    done
  done
  ldconfig
  mkdir -p /etc/OpenCL/vendors
  for lib in /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib/libnvidia-opencl.so /usr/lib64/libnvidia-opencl.so.1; do
    if [ -e "$lib" ]; then echo "$lib" > /etc/OpenCL/vendors/nvidia.icd; break; fi
  done
}

# Points the Vulkan and EGL loaders at NVIDIA's driver files where the machine has them.
use_nvidia_drivers() {
  if [ -z "${VK_DRIVER_FILES:-}" ] && [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  fi
  if [ -e /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  fi
}
