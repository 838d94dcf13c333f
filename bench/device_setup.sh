# Source this on the GPU machine (device tool) from the repository root:
#   . bench/device_setup.sh
# Registers NVIDIA's OpenCL driver, installs the carried wheels (.whl/) and soac itself into /tmp/site.
# .whl/ (ignored by git) holds Python 3.12 wheels fetched beforehand with
#   pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform any -d .whl \
#     pyopencl pytools platformdirs siphash24 xdsl==0.74.0 immutabledict ordered-set filecheck lit
mkdir -p /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --upgrade --target /tmp/site . >/dev/null
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
