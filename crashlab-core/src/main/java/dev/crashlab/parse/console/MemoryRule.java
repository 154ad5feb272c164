package dev.crashlab.parse.console;

import dev.crashlab.fact.MemoryShortage;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads statements that memory ran out, on the GPU (TF's OOM and allocator lines, PyTorch's {@code CUDA out
 * of memory}, PaddlePaddle's {@code Out of memory error on GPU 0}, {@code CUDA_ERROR_OUT_OF_MEMORY}) or on the host ({@code MemoryError}, {@code std::bad_alloc},
 * a too-small pagefile, {@code Killed} soon after the log talked about memory).
 *
 * <p>NOTE: stateful (remembers the last line that mentioned memory): use one instance per artifact.
 */
final class MemoryRule {

    /** How many lines after a memory mention a bare {@code Killed} still counts as the OOM killer's. */
    private static final int KILLED_WINDOW = 50;

    private static final Pattern TF_OOM = Pattern.compile("OOM when allocating tensor with (shape ?\\[[^\\]]{0,200}\\])(.{0,300})");
    private static final Pattern TORCH_OLD = Pattern.compile(
            "CUDA out of memory\\. Tried to allocate ([\\d.]{1,12} ?[KMGT]?i?B) \\(GPU (\\d{1,3}); ([\\d.]{1,12} ?[KMGT]?i?B) total capacity;"
                    + "(?:.{0,200}?([\\d.]{1,12} ?[KMGT]?i?B) free;)?");
    private static final Pattern TORCH_NEW = Pattern.compile(
            "out of memory\\. Tried to allocate ([\\d.]{1,12} ?[KMGT]?i?B)\\. GPU (\\d{1,3}) has a total capac(?:i)?ty of ([\\d.]{1,12} ?[KMGT]?i?B)"
                    + " of which ([\\d.]{1,12} ?[KMGT]?i?B) is free");
    private static final Pattern TF_ALLOC = Pattern.compile(
            "(?:failed to allocate|ran out of memory trying to allocate) ([\\d.]{1,12} ?[KMGT]?i?B?(?: \\(\\d{1,20} bytes\\))?)");
    /**
     * PaddlePaddle's GPU allocator ({@code paddle/fluid/memory/allocation/cuda_allocator.cc}): {@code Out of memory error on
     * GPU 0. Cannot allocate 6.933594GB memory on GPU 0, [10.6GB memory has been allocated and ]available memory is only
     * 726.750000MB.} (Paddle 1.x wrote {@code Cannot allocate 145.46MB GPU memory, available memory is 72.31MB}).
     */
    private static final Pattern PADDLE = Pattern.compile(
            "Out of memory error on GPU (\\d{1,3})\\. Cannot allocate ([\\d.]{1,16} ?[kKMGT]?i?B)(?: memory on GPU \\d{1,3}| GPU memory)"
                    + "(?:, ([\\d.]{1,16} ?[kKMGT]?i?B) memory has been allocated and)?,? available memory is (?:only )?([\\d.]{1,16} ?[kKMGT]?i?B)");
    private static final Pattern NUMPY = Pattern.compile("Unable to allocate ([\\d.]{1,12} ?[KMGTP]?i?B)");
    private static final Pattern CPU_ALLOC = Pattern.compile("not enough memory: you tried to allocate (\\d{1,20} bytes)");

    /** Every literal one of this rule's checks needs (the reading pass's prefilter looks for these first). */
    static final String[] LITERALS = {"memory", "Memory", "OOM", "MEMORY", "bad_alloc", "allocate", "paging file is too small",
        "Файл подкачки слишком мал", "Killed"};

    /** What makes a line mention memory (the first six of {@link #LITERALS}). */
    static final String[] MENTIONS = {"memory", "Memory", "OOM", "MEMORY", "bad_alloc", "allocate"};

    /**
     * A literal of every check past the mention (a shortage's wording, a healthy start-up's report): a line mentioning
     * memory with none of these only marks the mention. Keep in step with {@link #apply}.
     */
    static final String[] DETAILS = {"paging file is too small", "Файл подкачки слишком мал", "MB memory", "totalMemory:",
        "memoryClockRate", "OOM when allocating", "out of memory", "failed to allocate", "CUDA_ERROR_OUT_OF_MEMORY",
        "CUDA out of memory", "Out of memory error on GPU", "OutOfMemoryError", "cudaErrorMemoryAllocation", "Resource exhausted", "ResourceExhaustedError",
        "Unable to allocate", "not enough memory: you tried to allocate", "MemoryError", "std::bad_alloc", "Out of memory: Kill"};

    /**
     * Reads at most one memory shortage from the line, knowing from the prefilter whether the whole line holds one of
     * {@link #MENTIONS} and one of {@link #DETAILS}: a mention without detail only marks the mention (the common
     * case of a training log's allocation warnings), without the checks.
     */
    void apply(ConsoleLine line, FactSink out, boolean mention, boolean detail) {
        if (!detail && mention) {
            lastMemoryMention = line.number;
            return;
        }
        apply(line, out);
    }

    private long lastMemoryMention = -1_000_000;

    /** What {@link #apply(ConsoleLine, FactSink, boolean, boolean)} does with a mention without detail on line {@code number}. */
    void mentionAt(long number) {
        lastMemoryMention = number;
    }

    /** Reads at most one memory shortage from the line. */
    void apply(ConsoleLine line, FactSink out) {
        String t = line.text;
        boolean mentions = t.contains("memory") || t.contains("Memory") || t.contains("OOM") || t.contains("MEMORY")
                || t.contains("bad_alloc") || t.contains("allocate");
        if (t.contains("paging file is too small") || t.contains("Файл подкачки слишком мал")) {
            lastMemoryMention = line.number;
            emit(line, "host", null, null, null, "pagefile too small", out);
            return;
        }
        if (!mentions) {
            if (t.length() < 200 && t.strip().startsWith("Killed") && line.number - lastMemoryMention <= KILLED_WINDOW
                    && !t.contains("Killed process")) {
                emit(line, "host", null, null, null, "killed soon after the log reported memory trouble", out);
            }
            return;
        }
        if (healthy(t)) {
            return;
        }
        lastMemoryMention = line.number;
        Matcher m;
        if (t.contains("OOM when allocating")) {
            m = TF_OOM.matcher(t);
            if (m.find()) {
                String rest = m.group(2).strip();
                String where = rest.contains("CPU") && !rest.contains("GPU") ? "host" : "gpu";
                emit(line, where, m.group(1).replace("shape [", "shape["), null, null, rest.isEmpty() ? null : rest, out);
                return;
            }
        }
        if (t.contains("Out of memory error on GPU")) {
            m = PADDLE.matcher(t);
            if (m.find()) {
                emit(line, "gpu", m.group(2), null, m.group(4), "GPU " + m.group(1) + " (PaddlePaddle's allocator)", out);
            } else {
                emit(line, "gpu", null, null, null, "PaddlePaddle's allocator", out);
            }
            return;
        }
        if (t.contains("out of memory. Tried to allocate")) {
            m = TORCH_OLD.matcher(t);
            if (m.find()) {
                emit(line, "gpu", m.group(1), m.group(3), m.group(4), "GPU " + m.group(2) + heldElsewhere(t, m.group(3), m.group(4)), out);
                return;
            }
            m = TORCH_NEW.matcher(t);
            if (m.find()) {
                emit(line, "gpu", m.group(1), m.group(3), m.group(4), "GPU " + m.group(2), out);
                return;
            }
        }
        if (t.contains("failed to allocate") || t.contains("ran out of memory trying to allocate")) {
            m = TF_ALLOC.matcher(t);
            if (m.find()) {
                String where = t.contains("cpu_allocator") || t.contains("CPU") && !t.contains("GPU") ? "host" : "gpu";
                emit(line, where, m.group(1), null, null, t.contains("CUDA_ERROR_OUT_OF_MEMORY") ? "CUDA_ERROR_OUT_OF_MEMORY" : null, out);
                return;
            }
        }
        if (t.contains("out of memory") && (t.contains("THCudaCheck FAIL") || t.contains("cuda runtime error (2)"))) {
            // PyTorch 0.x/1.x: "THCudaCheck FAIL file=... error=2 : out of memory", "cuda runtime error (2) : out of memory"
            emit(line, "gpu", null, null, null, "CUDA out of memory (cudaErrorMemoryAllocation)", out);
            return;
        }
        if (t.contains("CUDA_ERROR_OUT_OF_MEMORY") || t.contains("CUDA out of memory") || t.contains("OutOfMemoryError")
                || t.contains("cudaErrorMemoryAllocation")) {
            emit(line, "gpu", null, null, null, gpuDetail(t), out);
            return;
        }
        if (t.contains("Resource exhausted") || t.contains("ResourceExhaustedError")) {
            if (containsOom(t)) {
                emit(line, "gpu", null, null, null, "resource exhausted", out);
            }
            return;
        }
        if (t.contains("Unable to allocate")) {
            m = NUMPY.matcher(t);
            if (m.find()) {
                emit(line, "host", m.group(1), null, null, "numpy array allocation", out);
                return;
            }
        }
        if (t.contains("not enough memory: you tried to allocate")) {
            m = CPU_ALLOC.matcher(t);
            if (m.find()) {
                emit(line, "host", m.group(1), null, null, "CPU allocator", out);
                return;
            }
        }
        if (t.startsWith("MemoryError")) {
            emit(line, "host", null, null, null, "Python MemoryError", out);
        } else if (t.contains("std::bad_alloc")) {
            emit(line, "host", null, null, null, "std::bad_alloc", out);
        } else if (t.contains("Out of memory: Kill") || t.contains("Out of memory: Killed process")) {
            emit(line, "host", null, null, null, "kernel OOM killer", out);
        }
    }

    /**
     * Tells whether a line only reports memory a healthy start-up found (TF's {@code Created device ... with 6126 MB
     * memory}, its {@code totalMemory: ... freeMemory:} device listing): no trouble, so a later {@code Killed} is not
     * read as the OOM killer's because of it.
     */
    private static boolean healthy(String t) {
        return (t.contains("Created") && t.contains("device") && t.contains("MB memory") && !containsOom(t))
                || (t.contains("totalMemory:") && t.contains("freeMemory:"))
                || t.contains("memoryClockRate");
    }

    private static boolean containsOom(String t) {
        return t.contains("OOM") || t.contains("out of memory") || t.contains("Out of memory");
    }

    /**
     * What PyTorch 1.x's allocator held: {@code W reserved in total by PyTorch} (1.6+, allocated included), or
     * {@code X already allocated; ... W cached} (1.0-1.5, where "cached" counts only the free blocks it kept).
     */
    private static final Pattern TORCH_RESERVED = Pattern.compile("([\\d.]{1,12} ?[KMGT]?i?B) reserved in total by PyTorch");
    private static final Pattern TORCH_CACHED = Pattern.compile(
            "([\\d.]{1,12} ?[KMGT]?i?B) already allocated;.{0,80}?([\\d.]{1,12} ?[KMGT]?i?B) cached");
    private static final Pattern SIZE = Pattern.compile("([\\d.]{1,12}) ?([KMGT]?)i?B");

    /**
     * PyTorch 1.x's out-of-memory message gives the card's total, what its own allocator held and what was free; the
     * rest ({@code total - held - free}) was held outside this process's allocator: the CUDA context and libraries
     * (well under 2 GiB) or another process. Returns {@code "; X GiB of Y held outside this process's PyTorch allocator"}
     * when that rest is at least 2 GiB and 40 % of the card, else {@code ""}.
     */
    static String heldElsewhere(String t, String total, String free) {
        double tot = bytes(total);
        double fr = bytes(free);
        double held = -1;
        Matcher r = TORCH_RESERVED.matcher(t);
        if (r.find()) {
            held = bytes(r.group(1));
        } else {
            Matcher c = TORCH_CACHED.matcher(t);
            if (c.find() && bytes(c.group(1)) >= 0 && bytes(c.group(2)) >= 0) {
                held = bytes(c.group(1)) + bytes(c.group(2));
            }
        }
        if (held < 0 || tot <= 0 || fr < 0) {
            return "";
        }
        double outside = tot - held - fr;
        if (outside < 2.0 * (1L << 30) || outside < 0.4 * tot) {
            return "";
        }
        return String.format(java.util.Locale.ROOT, "; %.2f GiB of %s held outside this process's PyTorch allocator", outside / (1L << 30),
                total.strip());
    }

    private static double bytes(String size) {
        if (size == null) {
            return -1;
        }
        Matcher m = SIZE.matcher(size);
        if (!m.find()) {
            return -1;
        }
        double v;
        try {
            v = Double.parseDouble(m.group(1));
        } catch (NumberFormatException e) {
            return -1;
        }
        int shift = switch (m.group(2)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> 0;
        };
        return v * (1L << shift);
    }

    private static String gpuDetail(String t) {
        if (t.contains("CUDA_ERROR_OUT_OF_MEMORY")) {
            return "CUDA_ERROR_OUT_OF_MEMORY";
        }
        if (t.contains("OutOfMemoryError")) {
            return "torch.OutOfMemoryError";
        }
        return t.contains("cudaErrorMemoryAllocation") ? "cudaErrorMemoryAllocation" : "CUDA out of memory";
    }

    private static void emit(ConsoleLine line, String where, String requested, String total, String free, String detail,
            FactSink out) {
        out.add(new MemoryShortage(where, requested, total, free, detail, List.of()), line.ref());
    }
}
