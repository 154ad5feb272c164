// Backward-data pass dx = conv^T(dy, w) of a direct convolution (also the forward pass of a transposed
// convolution), as an implicit GEMM per group:
//   rows = input pixels (n, id, ih, iw), columns = the group's input channels,
//   reduction = the group's output channels x kernel taps; A is dy at the output pixel each tap maps
//   the input pixel to (zero where the tap falls between strides or outside the output), B is w.
// Grid: x = row tiles, y = column tiles, z = groups (from groupBase). Block: 256 threads.
#include "conv_common.cuh"

template <typename T>
struct BackwardDataPass {
    ConvGeom g;
    const T* __restrict__ dy;
    const T* __restrict__ w;
    T* __restrict__ dx;
    int group, cg, kg, taps;
    long long inPlane, outPlane;

    struct Row {
        bool valid;
        const T* grad;          // dy at (n, first channel of the group)
        int td, th, tw;         // the input pixel plus the padding: od * sd + rd * dd == td when a tap hits
        T* out;                 // dx at (n, first channel of the group, id, ih, iw)
    };
    struct Col {
        bool valid;
        int c;                  // input channel within the group
        const T* filter;        // w at (first channel of the group, c, 0, 0, 0)
    };

    __device__ BackwardDataPass(const ConvGeom& geom, const T* dy_, const T* w_, T* dx_, int group_)
        : g(geom), dy(dy_), w(w_), dx(dx_), group(group_) {
        cg = g.c / g.groups;
        kg = g.k / g.groups;
        taps = g.kd * g.kh * g.kw;
        inPlane = (long long) g.id * g.ih * g.iw;
        outPlane = (long long) g.od * g.oh * g.ow;
    }

    __device__ long long rows() const { return (long long) g.n * inPlane; }
    __device__ int cols() const { return cg; }
    __device__ long long reduction() const { return (long long) kg * taps; }

    __device__ Row row(long long m) const {
        Row r;
        r.valid = m < rows();
        if (!r.valid) { r.grad = dy; r.out = dx; r.td = r.th = r.tw = 0; return r; }
        const long long n = m / inPlane;
        const long long p = m - n * inPlane;
        const int id = (int) (p / ((long long) g.ih * g.iw));
        const int rest = (int) (p - (long long) id * g.ih * g.iw);
        const int ih = rest / g.iw;
        const int iw = rest - ih * g.iw;
        r.grad = dy + (n * g.k + (long long) group * kg) * outPlane;
        r.td = id + g.pd;
        r.th = ih + g.ph;
        r.tw = iw + g.pw;
        r.out = dx + (n * g.c + (long long) group * cg) * inPlane + p;
        return r;
    }

    __device__ Col col(int c) const {
        Col k;
        k.valid = c < cg;
        k.c = c;
        k.filter = w + (long long) group * kg * cg * taps + (long long) (k.valid ? c : 0) * taps;
        return k;
    }

    // The output coordinate a tap maps input coordinate t (padded) to, or -1 when there is none.
    __device__ static int source(int t, int tap, int dilation, int stride, int outSize) {
        const int s = t - tap * dilation;
        if (s < 0 || s % stride != 0) return -1;
        const int o = s / stride;
        return o < outSize ? o : -1;
    }

    __device__ float a(const Row& r, long long red) const {
        if (!r.valid) return 0.0f;
        const int ki = (int) (red / taps);
        const int t = (int) (red - (long long) ki * taps);
        const int rd = t / (g.kh * g.kw);
        const int th = t - rd * g.kh * g.kw;
        const int rh = th / g.kw;
        const int rw = th - rh * g.kw;
        const int od = source(r.td, rd, g.dd, g.sd, g.od);
        const int oh = source(r.th, rh, g.dh, g.sh, g.oh);
        const int ow = source(r.tw, rw, g.dw, g.sw, g.ow);
        if (od < 0 || oh < 0 || ow < 0) return 0.0f;
        return to_float(r.grad[ki * outPlane + ((long long) od * g.oh + oh) * g.ow + ow]);
    }

    __device__ float b(const Col& k, long long red) const {
        if (!k.valid) return 0.0f;
        const long long ki = red / taps;
        const long long t = red - ki * taps;
        return to_float(k.filter[ki * cg * taps + t]);
    }

    __device__ void store(const Row& r, const Col& k, float v) const {
        r.out[k.c * inPlane] = from_float<T>(v);
    }
};

template <typename T>
__device__ __forceinline__ void conv_backward_data(const ConvGeom& g, const T* dy, const T* w, T* dx) {
    const BackwardDataPass<T> pass(g, dy, w, dx, g.groupBase + (int) blockIdx.z);
    tiled_gemm(pass, (long long) blockIdx.x * TILE_M, (int) blockIdx.y * TILE_N, 0, pass.reduction());
}

extern "C" __global__ void __launch_bounds__(THREADS)
conv_bwd_data_f32(const ConvGeom g, const float* dy, const float* w, float* dx) {
    conv_backward_data<float>(g, dy, w, dx);
}

extern "C" __global__ void __launch_bounds__(THREADS)
conv_bwd_data_f16(const ConvGeom g, const __half* dy, const __half* w, __half* dx) {
    conv_backward_data<__half>(g, dy, w, dx);
}

extern "C" __global__ void __launch_bounds__(THREADS)
conv_bwd_data_bf16(const ConvGeom g, const __nv_bfloat16* dy, const __nv_bfloat16* w, __nv_bfloat16* dx) {
    conv_backward_data<__nv_bfloat16>(g, dy, w, dx);
}
