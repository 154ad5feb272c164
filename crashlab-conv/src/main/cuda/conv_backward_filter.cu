// Backward-filter pass dw = x (*) dy of a direct convolution, as an implicit GEMM per group:
//   rows = the group's output channels, columns = the group's input channels x kernel taps,
//   reduction = every output pixel of every image (n, od, oh, ow); A is dy, B is x gathered through the
//   window (zero outside the input).
// The reduction is long and the output small, so it is split into splitK slices (grid z = groups x
// splitK) that add into a float32 accumulator with atomics; the accumulator must be zeroed first. For the
// half types, convert_* then rounds it into the filter's storage type.
// Grid: x = row tiles, y = column tiles, z = groups x splitK (from groupBase). Block: 256 threads.
#include "conv_common.cuh"

template <typename T>
struct BackwardFilterPass {
    ConvGeom g;
    const T* __restrict__ x;
    const T* __restrict__ dy;
    float* __restrict__ dw;
    int group, cg, kg, taps;
    long long inPlane, outPlane;

    struct Row {
        bool valid;
        int k;                  // output channel within the group
        const T* grad;          // dy at (0, the group's channel k)
    };
    struct Col {
        bool valid;
        long long offset;       // (c, tap) within a filter of the group
        const T* in;            // x at (0, the group's channel c)
        int zd, zh, zw;         // the tap's offset from a window's origin, minus the padding
    };

    __device__ BackwardFilterPass(const ConvGeom& geom, const T* x_, const T* dy_, float* dw_, int group_)
        : g(geom), x(x_), dy(dy_), dw(dw_), group(group_) {
        cg = g.c / g.groups;
        kg = g.k / g.groups;
        taps = g.kd * g.kh * g.kw;
        inPlane = (long long) g.id * g.ih * g.iw;
        outPlane = (long long) g.od * g.oh * g.ow;
    }

    __device__ long long rows() const { return kg; }
    __device__ int cols() const { return cg * taps; }
    __device__ long long reduction() const { return (long long) g.n * outPlane; }

    __device__ Row row(long long m) const {
        Row r;
        r.valid = m < rows();
        r.k = (int) m;
        r.grad = dy + ((long long) group * kg + (r.valid ? m : 0)) * outPlane;
        return r;
    }

    __device__ Col col(int c) const {
        Col k;
        k.valid = c < cols();
        const int cc = k.valid ? c : 0;
        const int ci = cc / taps;
        const int t = cc - ci * taps;
        const int rd = t / (g.kh * g.kw);
        const int th = t - rd * g.kh * g.kw;
        const int rh = th / g.kw;
        const int rw = th - rh * g.kw;
        k.offset = cc;
        k.in = x + ((long long) group * cg + ci) * inPlane;
        k.zd = rd * g.dd - g.pd;
        k.zh = rh * g.dh - g.ph;
        k.zw = rw * g.dw - g.pw;
        return k;
    }

    __device__ float a(const Row& r, long long red) const {
        if (!r.valid) return 0.0f;
        const long long n = red / outPlane;
        const long long p = red - n * outPlane;
        return to_float(r.grad[n * g.k * outPlane + p]);
    }

    __device__ float b(const Col& k, long long red) const {
        if (!k.valid) return 0.0f;
        const long long n = red / outPlane;
        const long long p = red - n * outPlane;
        const int od = (int) (p / ((long long) g.oh * g.ow));
        const int rest = (int) (p - (long long) od * g.oh * g.ow);
        const int oh = rest / g.ow;
        const int ow = rest - oh * g.ow;
        const int zd = od * g.sd + k.zd;
        const int zh = oh * g.sh + k.zh;
        const int zw = ow * g.sw + k.zw;
        if (zd < 0 || zd >= g.id || zh < 0 || zh >= g.ih || zw < 0 || zw >= g.iw) return 0.0f;
        return to_float(k.in[n * g.c * inPlane + ((long long) zd * g.ih + zh) * g.iw + zw]);
    }

    __device__ void store(const Row& r, const Col& k, float v) const {
        atomicAdd(dw + ((long long) group * kg + r.k) * cg * taps + k.offset, v);
    }
};

template <typename T>
__device__ __forceinline__ void conv_backward_filter(const ConvGeom& g, const T* x, const T* dy, float* dw) {
    const int slice = (int) blockIdx.z % g.splitK;
    const BackwardFilterPass<T> pass(g, x, dy, dw, g.groupBase + (int) blockIdx.z / g.splitK);
    // Each slice takes a whole number of TILE_K steps (the host's ConvLaunchPlan uses the same formula).
    const long long total = pass.reduction();
    const long long steps = (total + TILE_K - 1) / TILE_K;
    const long long perSlice = (steps + g.splitK - 1) / g.splitK * TILE_K;
    const long long begin = slice * perSlice;
    const long long end = min(total, begin + perSlice);
    if (begin >= end) return;
    tiled_gemm(pass, (long long) blockIdx.x * TILE_M, (int) blockIdx.y * TILE_N, begin, end);
}

extern "C" __global__ void __launch_bounds__(THREADS)
conv_bwd_filter_f32(const ConvGeom g, const float* x, const float* dy, float* dw) {
    conv_backward_filter<float>(g, x, dy, dw);
}

extern "C" __global__ void __launch_bounds__(THREADS)
conv_bwd_filter_f16(const ConvGeom g, const __half* x, const __half* dy, float* dw) {
    conv_backward_filter<__half>(g, x, dy, dw);
}

extern "C" __global__ void __launch_bounds__(THREADS)
conv_bwd_filter_bf16(const ConvGeom g, const __nv_bfloat16* x, const __nv_bfloat16* dy, float* dw) {
    conv_backward_filter<__nv_bfloat16>(g, x, dy, dw);
}

// Rounds a float32 accumulator into a half-type tensor (grid-stride loop, any grid size).
template <typename T>
__device__ __forceinline__ void round_into(const float* src, T* dst, long long count) {
    const long long step = (long long) gridDim.x * blockDim.x;
    for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step) {
        dst[i] = from_float<T>(src[i]);
    }
}

extern "C" __global__ void convert_f32_to_f16(const float* src, __half* dst, long long count) {
    round_into<__half>(src, dst, count);
}

extern "C" __global__ void convert_f32_to_bf16(const float* src, __nv_bfloat16* dst, long long count) {
    round_into<__nv_bfloat16>(src, dst, count);
}
