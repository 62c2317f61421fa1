# Sourced by the scripts that configure build/: the CUDA toolkit's usual folder goes on PATH,
# so that CMake sees the same nvcc (or none) whichever script configures build/ first.
if [ -d /usr/local/cuda/bin ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
