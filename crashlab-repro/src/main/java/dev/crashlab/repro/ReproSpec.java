package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.ArrayList;
import java.util.List;

/**
 * Describes what a reproduction replays: an editable list of convolution layers plus how they ran (batch,
 * dtype, mixed precision, layout, inference or a training step, the optimizer) and the reporter's GPU memory.
 *
 * <p>NOTE: this is the unit that travels between the UI, the job queue and the child process; its JSON form
 * ({@link ReproSpecJson}, {@code "format": 1}) is documented in docs/reproduction.md. Any Jackson mapper
 * writes and reads a spec in that form (the annotations below), so a record holding one (a claimed job, a job
 * view, a draft) needs no conversion of its own; reading a bad document fails with every bad field's path. {@code notes} say
 * what {@link ReproSpecs#fromFacts} could not read from the bundle and assumed instead.
 *
 * @param layers the convolution layers, in model order
 * @param batch N, shared by every layer
 * @param dtype the compute dtype of activations and weights
 * @param mixedPrecision whether weights are kept in float32 ("master weights") while computing in {@code dtype}
 * @param layout the reporter's memory layout
 * @param mode inference (forward only) or a training step (forward, backward-data, backward-filter)
 * @param optimizer the optimizer, which sets how many slots per weight the estimate counts
 * @param reporterGpu the reporter's GPU memory, or null when no bundle file stated it
 * @param notes what was assumed or left out when the spec was made from facts
 */
@JsonSerialize(using = ReproSpecJson.Serializer.class)
@JsonDeserialize(using = ReproSpecJson.Deserializer.class)
public record ReproSpec(List<ReproLayer> layers, int batch, ConvProblem.DType dtype, boolean mixedPrecision,
        ConvProblem.Layout layout, Mode mode, Optimizer optimizer, ReporterGpu reporterGpu, List<String> notes) {

    /** The version of the JSON format this code reads and writes. */
    public static final int FORMAT = 1;

    /** Inference runs the forward pass; training runs forward, backward-data and backward-filter. */
    public enum Mode {
        INFERENCE, TRAINING;

        /** The JSON spelling. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Optimizers by the number of float slots they keep per weight (momentum, second moments). */
    public enum Optimizer {
        SGD(0), MOMENTUM(1), RMSPROP(1), ADAGRAD(1), ADAM(2), ADADELTA(2);

        /** Extra tensors the size of the weights that this optimizer keeps. */
        public final int slots;

        Optimizer(int slots) {
            this.slots = slots;
        }

        /** The JSON spelling. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * The reporter's GPU memory, as nvidia-smi (or a log) stated it.
     *
     * @param name the product name, or null
     * @param memoryTotalMiB the card's memory
     * @param memoryUsedMiB memory already held when the snapshot was taken (other processes), or null
     */
    public record ReporterGpu(String name, long memoryTotalMiB, Long memoryUsedMiB) {}

    public ReproSpec {
        layers = List.copyOf(layers);
        notes = notes == null ? List.of() : List.copyOf(notes);
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be >= 1: " + batch);
        }
        if (dtype == null || layout == null || mode == null || optimizer == null) {
            throw new IllegalArgumentException("dtype, layout, mode and optimizer are required");
        }
    }

    /** The problems a backend runs, one per layer, in order. */
    public List<ConvProblem> problems() {
        List<ConvProblem> out = new ArrayList<>(layers.size());
        for (ReproLayer l : layers) {
            out.add(l.problem(batch, dtype, layout));
        }
        return out;
    }

    /** Returns this spec with another batch size (the UI's most common edit). */
    public ReproSpec withBatch(int newBatch) {
        return new ReproSpec(layers, newBatch, dtype, mixedPrecision, layout, mode, optimizer, reporterGpu, notes);
    }

    /** Returns this spec with another mode. */
    public ReproSpec withMode(Mode newMode) {
        return new ReproSpec(layers, batch, dtype, mixedPrecision, layout, newMode, optimizer, reporterGpu, notes);
    }
}
