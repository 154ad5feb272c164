// Runs the convolution kernels of src/main/cuda on the CPU, to check their index arithmetic where there is
// no GPU: a block's 256 threads are std::threads (made once per launch, running the blocks in turn), __syncthreads
// is a barrier, __shared__ arrays are function statics (one block runs at a time, so they are that block's shared
// memory), atomicAdd is an atomic add. Random problems (seeded) are compared with direct loops in double. Built and
// run by KernelHostEmulationTest; by hand:
//   g++ -std=c++20 -O1 -pthread -I<cuda>/include -Isrc/main/cuda src/test/cuda/kernel_host_emulation.cpp -o emu && ./emu SEED CASES
// It checks what the kernels compute, not how fast, and nothing about the GPU's memory model.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

struct Dim3 { unsigned x = 0, y = 0, z = 0; };
thread_local Dim3 threadIdx, blockIdx;
Dim3 gridDim, blockDim;
static std::barrier<>* blockBarrier;
inline void __syncthreads() { blockBarrier->arrive_and_wait(); }
inline float atomicAdd(float* p, float v) { return std::atomic_ref<float>(*p).fetch_add(v); }
using std::min;

#undef __device__
#undef __global__
#undef __forceinline__
#undef __launch_bounds__
#undef __shared__
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __shared__ static
#include "conv_forward.cu"
#include "conv_backward_data.cu"
#include "conv_backward_filter.cu"

// One launch's threads are made once and run the blocks one after another, in the same order, meeting at the
// barrier after each block (so the next block's use of the __shared__ statics waits until every thread is done with
// them): making 256 threads per block took most of the run, and all of it in the kernel.
template <class Kernel>
static void launch(Dim3 grid, int threads, Kernel kernel) {
    gridDim = grid;
    blockDim = {(unsigned) threads, 1, 1};
    std::barrier<> barrier(threads);
    blockBarrier = &barrier;
    std::vector<std::thread> block;
    for (int t = 0; t < threads; t++)
        block.emplace_back([&, t] {
            threadIdx = {(unsigned) t, 0, 0};
            for (unsigned z = 0; z < grid.z; z++)
                for (unsigned y = 0; y < grid.y; y++)
                    for (unsigned x = 0; x < grid.x; x++) {
                        blockIdx = {x, y, z};
                        kernel();
                        barrier.arrive_and_wait();
                    }
        });
    for (auto& t : block) t.join();
}

static unsigned tiles(long long n, int tile) { return (unsigned) ((n + tile - 1) / tile); }

template <typename T> static T store(float v);
template <> float store<float>(float v) { return v; }
template <> __half store<__half>(float v) { return __float2half_rn(v); }
template <> __nv_bfloat16 store<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
static float load(float v) { return v; }
static float load(__half v) { return __half2float(v); }
static float load(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
static std::vector<T> stored(const std::vector<float>& v) {
    std::vector<T> out(v.size());
    for (size_t i = 0; i < v.size(); i++) out[i] = store<T>(v[i]);
    return out;
}

// the absolute error a storage type's subnormal range adds per rounded value (float16: half of its smallest
// step, 2^-24; the others' subnormals lie far below anything these problems produce)
template <typename T> static double subnormalStep() { return 0; }
template <> double subnormalStep<__half>() { return std::ldexp(1.0, -25); }

// the largest error relative to the reference, scaled by the sum of |products| behind each element, after
// taking off what rounding in the subnormal range explains: each of the `terms` products has one factor
// rounded there (the other is at most 1 in size) and the output is rounded once more
template <typename T>
static double worst(const std::vector<double>& want, const std::vector<double>& magnitude, const std::vector<int>& terms,
                    const std::vector<T>& got) {
    double w = 0;
    for (size_t i = 0; i < want.size(); i++) {
        double allowance = 2 * subnormalStep<T>() * (terms[i] + 1);
        double e = std::fmax(0.0, std::fabs((double) load(got[i]) - want[i]) - allowance) / (magnitude[i] + 1e-30);
        if (!(e <= w)) w = std::isnan(e) ? INFINITY : e;
    }
    return w;
}

int main(int argc, char** argv) {
    unsigned seed = argc > 1 ? (unsigned) strtoul(argv[1], nullptr, 10) : 1;
    int cases = argc > 2 ? atoi(argv[2]) : 30;
    std::mt19937 rng(seed);
    printf("seed %u\n", seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::uniform_real_distribution<float> uniform(-1, 1);
    int failures = 0;
    for (int cs = 0; cs < cases;) {
        ConvGeom g{};
        int rank = pick(1, 3);
        g.groups = pick(1, 3);
        g.n = pick(1, 2);
        g.c = g.groups * pick(1, 5);
        g.k = g.groups * pick(1, 70);   // up to 70 per group: more than one 64-wide column tile
        int* in[3] = {&g.id, &g.ih, &g.iw};
        int* ks[3] = {&g.kd, &g.kh, &g.kw};
        int* st[3] = {&g.sd, &g.sh, &g.sw};
        int* pb[3] = {&g.pd, &g.ph, &g.pw};
        int* dl[3] = {&g.dd, &g.dh, &g.dw};
        int* out[3] = {&g.od, &g.oh, &g.ow};
        bool fits = true;
        for (int d = 0; d < 3; d++) {
            bool used = d >= 3 - rank;
            *in[d] = used ? pick(1, rank == 3 ? 6 : 12) : 1;
            *ks[d] = used ? pick(1, 3) : 1;
            *st[d] = used ? pick(1, 3) : 1;
            *pb[d] = used ? pick(0, 2) : 0;
            int padEnd = used ? pick(0, 2) : 0;
            *dl[d] = used ? pick(1, 2) : 1;
            long long room = *in[d] + *pb[d] + padEnd - ((long long) *dl[d] * (*ks[d] - 1) + 1);
            if (room < 0) { fits = false; break; }
            *out[d] = (int) (room / *st[d] + 1);
        }
        if (!fits) continue;
        cs++;
        g.splitK = pick(1, 4);
        const int cg = g.c / g.groups, kg = g.k / g.groups, taps = g.kd * g.kh * g.kw;
        const long long inPlane = (long long) g.id * g.ih * g.iw, outPlane = (long long) g.od * g.oh * g.ow;
        std::vector<float> x(g.n * g.c * inPlane), w(g.k * cg * taps), dy(g.n * g.k * outPlane);
        for (auto& v : x) v = uniform(rng);
        for (auto& v : w) v = uniform(rng);
        for (auto& v : dy) v = uniform(rng);

        std::vector<double> y(dy.size()), dx(x.size()), dw(w.size()), my(dy.size()), mdx(x.size()), mdw(w.size());
        std::vector<int> ty(dy.size()), tdx(x.size()), tdw(w.size());
        for (int n = 0; n < g.n; n++)
            for (int k = 0; k < g.k; k++)
                for (int od = 0; od < g.od; od++)
                    for (int oh = 0; oh < g.oh; oh++)
                        for (int ow = 0; ow < g.ow; ow++) {
                            int group = k / kg;
                            long long yi = (((long long) n * g.k + k) * g.od + od) * g.oh * g.ow + oh * g.ow + ow;
                            for (int c = 0; c < cg; c++)
                                for (int rd = 0; rd < g.kd; rd++)
                                    for (int rh = 0; rh < g.kh; rh++)
                                        for (int rw = 0; rw < g.kw; rw++) {
                                            int zd = od * g.sd - g.pd + rd * g.dd;
                                            int zh = oh * g.sh - g.ph + rh * g.dh;
                                            int zw = ow * g.sw - g.pw + rw * g.dw;
                                            if (zd < 0 || zd >= g.id || zh < 0 || zh >= g.ih || zw < 0 || zw >= g.iw) continue;
                                            long long xi = (((long long) n * g.c + group * cg + c) * g.id + zd) * g.ih * g.iw + zh * g.iw + zw;
                                            long long wi = (((long long) k * cg + c) * g.kd + rd) * g.kh * g.kw + rh * g.kw + rw;
                                            y[yi] += (double) x[xi] * w[wi];
                                            my[yi] += std::fabs((double) x[xi] * w[wi]);
                                            dx[xi] += (double) dy[yi] * w[wi];
                                            mdx[xi] += std::fabs((double) dy[yi] * w[wi]);
                                            dw[wi] += (double) dy[yi] * x[xi];
                                            mdw[wi] += std::fabs((double) dy[yi] * x[xi]);
                                            ty[yi]++, tdx[xi]++, tdw[wi]++;
                                        }
                        }

        const Dim3 forwardGrid{tiles(g.n * outPlane, TILE_M), tiles(kg, TILE_N), 1};
        const Dim3 dataGrid{tiles(g.n * inPlane, TILE_M), tiles(cg, TILE_N), (unsigned) g.groups};
        const Dim3 filterGrid{tiles(kg, TILE_M), tiles((long long) cg * taps, TILE_N), (unsigned) (g.groups * g.splitK)};

        // float32, forward one group per launch (groupBase as the host does past 65535 groups)
        std::vector<float> gy(y.size(), NAN), gdx(dx.size(), NAN), gdw(dw.size(), 0.0f);
        for (int base = 0; base < g.groups; base++) {
            ConvGeom one = g;
            one.groupBase = base;
            launch(forwardGrid, THREADS, [&] { conv_fwd_f32(one, x.data(), w.data(), gy.data()); });
        }
        launch(dataGrid, THREADS, [&] { conv_bwd_data_f32(g, dy.data(), w.data(), gdx.data()); });
        launch(filterGrid, THREADS, [&] { conv_bwd_filter_f32(g, x.data(), dy.data(), gdw.data()); });

        // half types: float16 forward and backward-data, bfloat16 backward-filter through its rounding kernel
        auto hx = stored<__half>(x), hw = stored<__half>(w), hdy = stored<__half>(dy);
        std::vector<__half> hy(y.size()), hdx(dx.size());
        Dim3 allGroups = forwardGrid;
        allGroups.z = g.groups;
        launch(allGroups, THREADS, [&] { conv_fwd_f16(g, hx.data(), hw.data(), hy.data()); });
        launch(dataGrid, THREADS, [&] { conv_bwd_data_f16(g, hdy.data(), hw.data(), hdx.data()); });
        auto bx = stored<__nv_bfloat16>(x), bdy = stored<__nv_bfloat16>(dy);
        std::vector<float> accumulator(dw.size(), 0.0f);
        std::vector<__nv_bfloat16> bdw(dw.size());
        launch(filterGrid, THREADS, [&] { conv_bwd_filter_bf16(g, bx.data(), bdy.data(), accumulator.data()); });
        launch(Dim3{3, 1, 1}, 64, [&] { convert_f32_to_bf16(accumulator.data(), bdw.data(), (long long) dw.size()); });

        // float32 within summation error; the half types within the inputs' and the output's rounding
        double e[] = {worst(y, my, ty, gy), worst(dx, mdx, tdx, gdx), worst(dw, mdw, tdw, gdw),
                      worst(y, my, ty, hy), worst(dx, mdx, tdx, hdx), worst(dw, mdw, tdw, bdw)};
        double limit[] = {1e-5, 1e-5, 1e-5, 3e-3, 3e-3, 2.5e-2};
        bool bad = false;
        for (int i = 0; i < 6; i++) bad |= !(e[i] <= limit[i]);
        failures += bad;
        printf("%s rank %d n %d c %d k %d groups %d in %dx%dx%d kernel %dx%dx%d stride %d,%d,%d pad %d,%d,%d "
               "dilation %d,%d,%d split %d | f32 fwd %.1e data %.1e filter %.1e | f16 fwd %.1e data %.1e | bf16 filter %.1e\n",
               bad ? "FAIL" : "ok", rank, g.n, g.c, g.k, g.groups, g.id, g.ih, g.iw, g.kd, g.kh, g.kw, g.sd, g.sh, g.sw,
               g.pd, g.ph, g.pw, g.dd, g.dh, g.dw, g.splitK, e[0], e[1], e[2], e[3], e[4], e[5]);
    }
    printf("%d failures in %d cases\n", failures, cases);
    return failures == 0 ? 0 : 1;
}
