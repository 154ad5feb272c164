// Forward pass y = conv(x, w) of a direct convolution, as an implicit GEMM per group:
//   rows = output pixels (n, od, oh, ow), columns = the group's output channels,
//   reduction = the group's input channels x kernel taps; A is x gathered through the window (im2col
//   on the fly, zero outside the input), B is w read in place.
// Grid: x = row tiles, y = column tiles, z = groups (from groupBase). Block: 256 threads.
#include "conv_common.cuh"

template <typename T>
struct ForwardPass {
    ConvGeom g;
    const T* __restrict__ x;
    const T* __restrict__ w;
    T* __restrict__ y;
    int group, cg, kg, taps;
    long long inPlane, outPlane;

    struct Row {
        bool valid;
        const T* in;            // x at (n, first channel of the group)
        int zd, zh, zw;         // the window's first input coordinate (may be negative: padding)
        T* out;                 // y at (n, first channel of the group, od, oh, ow)
    };
    struct Col {
        bool valid;
        int k;                  // output channel within the group
        const T* filter;        // w at (group's channel k, 0, 0, 0, 0)
    };

    __device__ ForwardPass(const ConvGeom& geom, const T* x_, const T* w_, T* y_, int group_)
        : g(geom), x(x_), w(w_), y(y_), group(group_) {
        cg = g.c / g.groups;
        kg = g.k / g.groups;
        taps = g.kd * g.kh * g.kw;
        inPlane = (long long) g.id * g.ih * g.iw;
        outPlane = (long long) g.od * g.oh * g.ow;
    }

    __device__ long long rows() const { return (long long) g.n * outPlane; }
    __device__ int cols() const { return kg; }
    __device__ long long reduction() const { return (long long) cg * taps; }

    __device__ Row row(long long m) const {
        Row r;
        r.valid = m < rows();
        if (!r.valid) { r.in = x; r.out = y; r.zd = r.zh = r.zw = 0; return r; }
        const long long n = m / outPlane;
        const long long p = m - n * outPlane;
        const int od = (int) (p / ((long long) g.oh * g.ow));
        const int rest = (int) (p - (long long) od * g.oh * g.ow);
        const int oh = rest / g.ow;
        const int ow = rest - oh * g.ow;
        r.in = x + (n * g.c + (long long) group * cg) * inPlane;
        r.zd = od * g.sd - g.pd;
        r.zh = oh * g.sh - g.ph;
        r.zw = ow * g.sw - g.pw;
        r.out = y + (n * g.k + (long long) group * kg) * outPlane + p;
        return r;
    }

    __device__ Col col(int c) const {
        Col k;
        k.valid = c < kg;
        k.k = c;
        k.filter = w + ((long long) group * kg + (k.valid ? c : 0)) * cg * taps;
        return k;
    }

    __device__ float a(const Row& r, long long red) const {
        if (!r.valid) return 0.0f;
        const int ci = (int) (red / taps);
        const int t = (int) (red - (long long) ci * taps);
        const int rd = t / (g.kh * g.kw);
        const int th = t - rd * g.kh * g.kw;
        const int rh = th / g.kw;
        const int rw = th - rh * g.kw;
        const int zd = r.zd + rd * g.dd;
        const int zh = r.zh + rh * g.dh;
        const int zw = r.zw + rw * g.dw;
        if (zd < 0 || zd >= g.id || zh < 0 || zh >= g.ih || zw < 0 || zw >= g.iw) return 0.0f;
        return to_float(r.in[ci * inPlane + ((long long) zd * g.ih + zh) * g.iw + zw]);
    }

    __device__ float b(const Col& k, long long red) const {
        return k.valid ? to_float(k.filter[red]) : 0.0f;
    }

    __device__ void store(const Row& r, const Col& k, float v) const {
        r.out[k.k * outPlane] = from_float<T>(v);
    }
};

template <typename T>
__device__ __forceinline__ void conv_forward(const ConvGeom& g, const T* x, const T* w, T* y) {
    const ForwardPass<T> pass(g, x, w, y, g.groupBase + (int) blockIdx.z);
    tiled_gemm(pass, (long long) blockIdx.x * TILE_M, (int) blockIdx.y * TILE_N, 0, pass.reduction());
}

extern "C" __global__ void __launch_bounds__(THREADS)
conv_fwd_f32(const ConvGeom g, const float* x, const float* w, float* y) { conv_forward<float>(g, x, w, y); }

extern "C" __global__ void __launch_bounds__(THREADS)
conv_fwd_f16(const ConvGeom g, const __half* x, const __half* w, __half* y) { conv_forward<__half>(g, x, w, y); }

extern "C" __global__ void __launch_bounds__(THREADS)
conv_fwd_bf16(const ConvGeom g, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y) {
    conv_forward<__nv_bfloat16>(g, x, w, y);
}
