/**
 * Parsers of environment listings: {@code pip freeze}, {@code pip list}, {@code conda list}, PyTorch's
 * {@code collect_env}, TensorFlow's {@code get_build_info()}, {@code nvcc -V} and free-form {@code key: value}
 * env files.
 *
 * <p>Each parser streams lines through {@link dev.crashlab.parse.ArtifactLines} (bounded line length,
 * undecodable bytes reported) and states what it reads in the shared vocabulary: {@code VersionFact} with a
 * normalized component ({@code torch}, {@code tensorflow}, {@code cuda-runtime}, {@code cudnn},
 * {@code nvidia-driver}, {@code nvcc}, {@code cuda-toolkit}, or the package's PEP 503 name), {@code BuildInfo}
 * (what a framework was built for), one {@code Platform} per listing, and a {@code GpuDevice} per named GPU.
 *
 * <p>Conventions the diagnosis relies on:
 * <ul>
 *   <li>placeholders ({@code N/A}, {@code Could not collect}, {@code No CUDA}, {@code None}) are unknown, never a version;
 *   <li>package aliases also state the component: {@code tensorflow-gpu} is {@code tensorflow},
 *       {@code cudatoolkit} and {@code nvidia-cuda-runtime-cu12} are {@code cuda-runtime},
 *       {@code nvidia-cudnn-cu12} is {@code cudnn}; {@code torch==2.0.1+cu117} is also
 *       {@code BuildInfo(torch, 2.0.1, cuda 11.7)} and {@code +cpu} a CPU-only build;
 *   <li>yes/no statements are versions {@code true}/{@code false} of a named component:
 *       {@code torch-debug-build}, {@code torch-cuda-available}, {@code tensorflow-rocm-build};
 *       TF's compiled GPU architectures are one {@code tensorflow-cuda-arch} fact each ({@code sm_86});
 *   <li>an env file's GPU count is {@code gpu-count} ({@code 8x V100} is 8; {@code gpu: none} is 0);
 *   <li>a listing holding a package published for one OS only ({@code _libgcc_mutex}, {@code libstdcxx-ng},
 *       {@code nvidia-nccl-cu12} are Linux; {@code vs2015_runtime}, {@code ucrt} Windows) states that OS family in its
 *       {@code Platform}; a distribution's gcc banner ({@code gcc (Ubuntu 13.1.0-8ubuntu1~22.04)}) states the OS;
 *   <li>a conda list header's environment path is {@code conda-env-path}; an env file's {@code container:} image is
 *       {@code container-image} ({@code nvcr.io/nvidia/pytorch:23.09-py3}); a {@code torch-1.8.0+cu111} wheel tag in
 *       another package's line is {@code <package>-built-for-torch} = {@code 1.8.0+cu111}, never a {@code BuildInfo}
 *       (the checks read every BuildInfo of a framework named like torch as PyTorch's own build).
 * </ul>
 */
package dev.crashlab.parse.env;
