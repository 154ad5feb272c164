package dev.crashlab.fact;

import java.util.List;

/**
 * How a model was run, where a file states it: the batch size ({@code fit(..., batch_size=32)}, a
 * batch dimension fixed in the model, a PyTorch repro's input tensor), the optimizer, the dtype policy.
 *
 * @param batchSize the batch size; null where not stated
 * @param optimizer the optimizer's class name ({@code Adam}, {@code SGD}); null where not stated
 * @param dtypePolicy the global dtype policy ({@code mixed_float16}); null where not stated
 */
public record TrainingSetup(Integer batchSize, String optimizer, String dtypePolicy, List<SourceRef> sources)
        implements ModelFact {

    public TrainingSetup {
        sources = List.copyOf(sources);
    }

    @Override
    public TrainingSetup withSources(List<SourceRef> s) {
        return new TrainingSetup(batchSize, optimizer, dtypePolicy, s);
    }
}
