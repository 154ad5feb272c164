package dev.crashlab.sniff;

/**
 * Names the kind of an uploaded artifact, as decided from its content by {@link ArtifactSniffer}.
 *
 * <p>NOTE: the constant names are stored in the database and used by the parsers' registry; rename
 * none of them without a migration.
 */
public enum ArtifactType {
    /** Binary Windows event log; starts with the file header magic {@code ElfFile\0}. */
    EVTX("Windows event log (.evtx)"),
    /** Event Viewer "Save as XML", its XML view, or {@code wevtutil qe /f:xml}: {@code <Event xmlns=...>}. */
    EVENTLOG_XML("Windows event log XML export"),
    /** Event Viewer "Save as CSV" ({@code Level,Date and Time,Source,Event ID,Task Category}). */
    EVENTLOG_CSV("Windows event log CSV export"),
    /** Event Viewer text exports, "details" text, {@code wevtutil qe /f:text}, {@code Get-WinEvent | Format-List}. */
    EVENTLOG_TEXT("Windows event log text"),
    /** The default {@code nvidia-smi} box table. */
    NVIDIA_SMI_TABLE("nvidia-smi table"),
    /** {@code nvidia-smi -q} text, and other nvidia-smi text output ({@code -L}, {@code nvlink}, error messages, captures). */
    NVIDIA_SMI_QUERY_TEXT("nvidia-smi -q text"),
    /** {@code nvidia-smi -q -x}: an {@code <nvidia_smi_log>} document. */
    NVIDIA_SMI_XML("nvidia-smi -q -x XML"),
    /** {@code nvidia-smi --query-gpu=... --format=csv}. */
    NVIDIA_SMI_CSV("nvidia-smi --query-gpu CSV"),
    /** Program output: Python tracebacks, TensorFlow/Keras/PyTorch logs, IDE run output. */
    CONSOLE_LOG("console log"),
    /** {@code pip freeze} / requirements: {@code name==version} lines. */
    PIP_FREEZE("pip freeze"),
    /** {@code pip list}: a name and a version column. */
    PIP_LIST("pip list"),
    /** {@code conda list}: name, version, build and channel columns. */
    CONDA_LIST("conda list"),
    /** PyTorch {@code python -m torch.utils.collect_env}. */
    TORCH_COLLECT_ENV("PyTorch collect_env"),
    /** TensorFlow {@code tf.sysconfig.get_build_info()}. */
    TF_BUILD_INFO("TensorFlow build info"),
    /** {@code nvcc -V}. */
    NVCC_VERSION("nvcc version"),
    /** A free-form {@code key: value} environment listing. */
    ENV_KEY_VALUE("environment listing"),
    /** Keras {@code model.to_json()}, a {@code .keras} {@code config.json}, or a TensorFlow.js {@code model.json}. */
    KERAS_MODEL_JSON("Keras model JSON"),
    /** Keras {@code model.summary()} table (Keras 2 or 3 style), also when pasted inside Python comments. */
    KERAS_MODEL_SUMMARY("Keras model summary"),
    /** Kernel log: {@code dmesg}, {@code journalctl -k}, NVRM Xid lines. */
    KERNEL_LOG("kernel log"),
    /** Text that matches none of the formats above. */
    TEXT("text"),
    /** Anything that is not text. */
    BINARY("binary");

    private final String label;

    ArtifactType(String label) {
        this.label = label;
    }

    /** Returns a short human-readable name for the type, e.g. {@code "nvidia-smi table"}. */
    public String label() {
        return label;
    }
}
