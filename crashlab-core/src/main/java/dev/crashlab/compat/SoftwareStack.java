package dev.crashlab.compat;

import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.LibraryLoadFailure;
import dev.crashlab.fact.Platform;
import dev.crashlab.fact.VersionFact;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what the compat checks compare out of a bundle's facts: the framework and its build, the CUDA
 * and cuDNN versions present (and those a failing load asked for), the driver, the GPUs, Python and the OS.
 *
 * <p>NOTE: a version the framework <em>asked for</em> (a library that failed to load, {@code origin} ending
 * in {@code missing library}) is not a version <em>present</em>: {@code cudart64_80.dll} missing means the
 * build wants CUDA 8.0, not that 8.0 is installed.
 */
public final class SoftwareStack {

    // cudart64_110.dll, cudart64_80.dll, cudart64_12.dll, libcudart.so.10.1, libcublas.so.11, cusolver64_10.dll
    private static final Pattern WIN_CUDA_LIB = Pattern.compile(
            "(?i)^(cudart|cublas|cublaslt|cufft|curand|cusolver|cusparse|nvrtc)64_(\\d+)(?:_\\d+)?\\.dll$");
    private static final Pattern LINUX_CUDA_LIB = Pattern.compile(
            "(?i)^lib(cudart|cublas|cublaslt|cufft|curand|cusolver|cusparse|nvrtc)\\.so\\.(\\d+(?:\\.\\d+)*)$");
    private static final Pattern WIN_CUDNN_LIB = Pattern.compile("(?i)^cudnn(?:_\\w+)?64_(\\d+)\\.dll$");
    private static final Pattern LINUX_CUDNN_LIB = Pattern.compile("(?i)^libcudnn(?:_\\w+)?\\.so\\.(\\d+(?:\\.\\d+)*)$");

    private final List<Fact> facts;
    private final List<Observed> frameworks = new ArrayList<>();
    private final List<BuildInfo> builds = new ArrayList<>();
    private final List<Observed> cudaPresent = new ArrayList<>();
    private final List<Observed> cudaWanted = new ArrayList<>();
    private final List<Observed> cudnnPresent = new ArrayList<>();
    private final List<Observed> cudnnWanted = new ArrayList<>();
    private final List<Observed> drivers = new ArrayList<>();
    private final List<GpuDevice> gpus = new ArrayList<>();
    private final List<Observed> pythons = new ArrayList<>();
    private final List<Observed> osFamilies = new ArrayList<>();
    private Fact tensorflowTrace;
    private final java.util.Set<String> sourceBuilds = new java.util.HashSet<>();

    private SoftwareStack(List<Fact> facts) {
        this.facts = List.copyOf(facts);
        for (Fact f : facts) {
            read(f);
        }
    }

    /** Reads the stack out of a bundle's facts. */
    public static SoftwareStack of(List<? extends Fact> facts) {
        return new SoftwareStack(new ArrayList<>(facts));
    }

    private void read(Fact f) {
        switch (f) {
            case VersionFact v -> readVersion(v);
            case BuildInfo b -> {
                builds.add(b);
                if (b.framework() != null && b.frameworkVersion() != null) {
                    frameworks.add(new Observed(normaliseFramework(b.framework()) + " " + b.frameworkVersion(), b));
                }
            }
            case LibraryLoadFailure l when l.library() != null -> readLibrary(l);
            case dev.crashlab.fact.LogLine l when tensorflowTrace == null && mentionsTensorflow(l.origin()) -> tensorflowTrace = l;
            case dev.crashlab.fact.PythonException e when tensorflowTrace == null
                    && (mentionsTensorflow(e.type()) || e.frames().stream().anyMatch(fr -> mentionsTensorflow(fr.file()))) -> tensorflowTrace = e;
            case GpuDevice g -> {
                gpus.add(g);
                if (g.driverVersion() != null) {
                    drivers.add(new Observed(g.driverVersion(), g));
                }
            }
            case Platform p -> {
                if (p.python() != null) {
                    pythons.add(new Observed(p.python(), p));
                }
                if (p.osFamily() != null) {
                    osFamilies.add(new Observed(p.osFamily().toLowerCase(Locale.ROOT), p));
                }
            }
            default -> { }
        }
    }

    private void readVersion(VersionFact v) {
        String c = v.component() == null ? "" : v.component().toLowerCase(Locale.ROOT);
        String origin = v.origin() == null ? "" : v.origin().toLowerCase(Locale.ROOT);
        boolean wanted = origin.contains("missing") || origin.contains("compiled with") || origin.contains("built for");
        if (c.endsWith("-source-build") && "true".equalsIgnoreCase(v.version())) {
            sourceBuilds.add(normaliseFramework(c.substring(0, c.length() - "-source-build".length())));
            return;
        }
        switch (c) {
            case "tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tf-nightly", "tensorflow-intel" ->
                    frameworks.add(new Observed("tensorflow " + v.version(), v));
            case "torch", "pytorch" -> frameworks.add(new Observed("torch " + v.version(), v));
            case "cuda-runtime", "cudatoolkit", "cuda-toolkit", "nvcc", "cuda" ->
                    (wanted ? cudaWanted : cudaPresent).add(new Observed(v.version(), v));
            case "cudnn" -> (wanted ? cudnnWanted : cudnnPresent).add(new Observed(v.version(), v));
            case "nvidia-driver", "driver" -> drivers.add(new Observed(v.version(), v));
            case "python" -> pythons.add(new Observed(v.version(), v));
            default -> { }
        }
    }

    private void readLibrary(LibraryLoadFailure l) {
        String lib = l.library().replaceAll(".*[/\\\\]", "");
        Matcher m;
        if ((m = WIN_CUDA_LIB.matcher(lib)).matches()) {
            cudaWanted.add(new Observed(windowsCudaVersion(m.group(1), m.group(2)), l));
        } else if ((m = LINUX_CUDA_LIB.matcher(lib)).matches()) {
            cudaWanted.add(new Observed(m.group(2), l));
        } else if ((m = WIN_CUDNN_LIB.matcher(lib)).matches() || (m = LINUX_CUDNN_LIB.matcher(lib)).matches()) {
            cudnnWanted.add(new Observed(m.group(1), l));
        }
    }

    /**
     * Decodes the version in a Windows CUDA DLL name: {@code cudart64_110} = 11.0, {@code cudart64_101} = 10.1,
     * {@code cudart64_80} = 8.0, {@code cudart64_12} = 12 (CUDA 12 names only the major); the math libraries
     * carry their own major since CUDA 10.1 ({@code cusolver64_11}), which is not the toolkit's; before it they
     * carried the toolkit's ({@code cublas64_100} = 10.0, {@code cufft64_90} = 9.0, {@code cublas64_80} = 8.0).
     */
    static String windowsCudaVersion(String lib, String digits) {
        if (!lib.equalsIgnoreCase("cudart") && !lib.equalsIgnoreCase("nvrtc")) {
            boolean toolkitBefore10 = digits.length() == 2 && digits.charAt(0) >= '6' && digits.charAt(0) <= '9';
            return digits.length() >= 3 || toolkitBefore10
                    ? digits.substring(0, digits.length() - 1) + "." + digits.charAt(digits.length() - 1)
                    : digits;
        }
        if (digits.length() == 2 && digits.charAt(0) == '1' && digits.charAt(1) >= '2') {
            return digits; // cudart64_12.dll: CUDA 12 and later name the major only
        }
        if (digits.length() >= 2) {
            return digits.substring(0, digits.length() - 1) + "." + digits.charAt(digits.length() - 1);
        }
        return digits;
    }

    private static boolean mentionsTensorflow(String s) {
        return s != null && s.toLowerCase(Locale.ROOT).matches(".*\\btensorflow(_core)?\\b.*");
    }

    /**
     * A fact showing TensorFlow ran (a version, a TF log line, a TF frame or exception type) even where its
     * version is not stated; null when nothing shows it.
     */
    public Fact tensorflowEvidence() {
        Observed tf = framework("tensorflow");
        return tf != null ? tf.fact() : tensorflowTrace;
    }

    private static String normaliseFramework(String f) {
        String s = f.toLowerCase(Locale.ROOT);
        return s.startsWith("tensorflow") ? "tensorflow" : s.equals("pytorch") ? "torch" : s;
    }

    /** Every fact the stack was read from. */
    public List<Fact> facts() {
        return facts;
    }

    /** The framework versions stated, as {@code "tensorflow 2.10.1"} or {@code "torch 2.0.1+cu117"}. */
    public List<Observed> frameworks() {
        return frameworks;
    }

    /** The first stated version of one framework ({@code tensorflow}, {@code torch}), or null. */
    public Observed framework(String name) {
        return frameworks.stream().filter(o -> o.value().startsWith(name + " "))
                .map(o -> new Observed(o.value().substring(name.length() + 1), o.fact())).findFirst().orElse(null);
    }

    /**
     * Whether the bundle says the framework ({@code tensorflow}, {@code torch}) was built from source: the stock
     * release's tested CUDA and cuDNN then say nothing about it (only its own {@code BuildInfo} does).
     */
    public boolean sourceBuild(String framework) {
        return sourceBuilds.contains(framework);
    }

    /** The framework builds stated ({@code BuildInfo}). */
    public List<BuildInfo> builds() {
        return builds;
    }

    /** CUDA versions present (runtime loaded, toolkit installed, nvcc). */
    public List<Observed> cudaPresent() {
        return cudaPresent;
    }

    /** CUDA versions the framework asked for (failed loads, "compiled with"). */
    public List<Observed> cudaWanted() {
        return cudaWanted;
    }

    /** cuDNN versions present. */
    public List<Observed> cudnnPresent() {
        return cudnnPresent;
    }

    /** cuDNN versions the framework asked for or was compiled with. */
    public List<Observed> cudnnWanted() {
        return cudnnWanted;
    }

    /** Driver versions stated. */
    public List<Observed> drivers() {
        return drivers;
    }

    /** The GPUs stated. */
    public List<GpuDevice> gpus() {
        return gpus;
    }

    /** Python versions stated. */
    public List<Observed> pythons() {
        return pythons;
    }

    /** OS families stated ({@code windows}, {@code linux}, {@code wsl2}, {@code macos}). */
    public List<Observed> osFamilies() {
        return osFamilies;
    }

    /** The platform key of the compat tables: {@code windows} or {@code linux} (WSL2 runs Linux builds), or null. */
    public String buildPlatform() {
        for (Observed o : osFamilies) {
            switch (o.value()) {
                case "windows" -> {
                    return "windows";
                }
                case "linux", "wsl2" -> {
                    return "linux";
                }
                default -> { }
            }
        }
        return null;
    }
}
