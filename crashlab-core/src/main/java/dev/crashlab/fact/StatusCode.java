package dev.crashlab.fact;

import java.util.List;

/**
 * A named status or error code a GPU library or the runtime reported ({@code CUDNN_STATUS_INTERNAL_ERROR},
 * {@code CUDA_ERROR_OUT_OF_MEMORY}, {@code cudaErrorInsufficientDriver}).
 *
 * @param family whose code it is: {@code cudnn}, {@code cublas}, {@code cuda-driver}, {@code cuda-runtime},
 *     {@code cufft}, {@code curand}, {@code cusolver}, {@code cusparse}, {@code nccl}, {@code gpu} (device lost),
 *     {@code arch} (the GPU's architecture is missing from the build; {@code name} is it, e.g. {@code sm_86}),
 *     {@code numpy-abi} (an extension built against another NumPy)
 * @param name the code's name as the library spells it; for messages that carry no name, the name the
 *     library gives that message ({@code cudaErrorNoKernelImageForDevice})
 * @param sources the lines that reported it
 */
public record StatusCode(String family, String name, List<SourceRef> sources) implements ProcessFact {

    public StatusCode {
        sources = List.copyOf(sources);
    }

    @Override
    public StatusCode withSources(List<SourceRef> s) {
        return new StatusCode(family, name, s);
    }
}
