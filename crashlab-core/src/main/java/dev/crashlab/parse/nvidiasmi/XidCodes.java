package dev.crashlab.parse.nvidiasmi;

import java.util.Map;

/**
 * Names and explains the NVIDIA Xid codes that matter for crashed jobs.
 *
 * <p>NOTE: from NVIDIA's Xid catalog (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html),
 * as summarised in the project's compat-facts notes; the meanings are our own words. A code not listed
 * here still becomes an {@code XidEvent}, without mnemonic and meaning.
 */
final class XidCodes {

    /** A code's short name and meaning. */
    record Xid(String mnemonic, String meaning) {}

    private static final Map<Integer, Xid> CODES = Map.ofEntries(
            Map.entry(8, new Xid("IDLE_TIMEOUT", "The GPU stopped making progress on its work; restart the application.")),
            Map.entry(13, new Xid("GR_EXCEPTION",
                    "The graphics/compute engine hit an exception, most often caused by a bug in the application or kernel.")),
            Map.entry(31, new Xid("MMU_ERR_FLT",
                    "A GPU memory page fault (an illegal memory access), usually an application bug; check it with compute-sanitizer.")),
            Map.entry(32, new Xid("PBDMA_ERROR",
                    "The DMA engine saw a corrupted push buffer stream, often a PCIe signal-quality problem rather than the application.")),
            Map.entry(43, new Xid("RESETCHANNEL_VERIF",
                    "The GPU stopped a channel after a software fault in the user application; the GPU itself is healthy.")),
            Map.entry(45, new Xid("PREEMPTIVE_REMOVAL",
                    "The driver cleaned up a channel because its process ended (Ctrl-C, kill) or after another error, often a DBE.")),
            Map.entry(46, new Xid("GPU_TIMEOUT_ERROR", "The GPU timed out; reset it.")),
            Map.entry(48, new Xid("GPU_ECC_DBE",
                    "An uncorrectable double-bit ECC memory error; the GPU needs a reset or reboot, repeated ones mean replacement.")),
            Map.entry(54, new Xid("AUX_POWER_NOT_CONNECTED", "The card's auxiliary power cable is not connected.")),
            Map.entry(62, new Xid("PMU_HALT_ERROR", "The GPU's internal power-management microcontroller halted; reset the GPU.")),
            Map.entry(63, new Xid("ROW_REMAP_EVENT",
                    "A memory row was marked for remapping (or a page for retirement) after ECC errors; takes effect on the next GPU reset.")),
            Map.entry(64, new Xid("ROW_REMAP_FAILURE",
                    "Remapping a faulty memory row failed; reset the GPU and contact support if it repeats.")),
            Map.entry(74, new Xid("NVLINK_ERROR",
                    "An NVLink error; the fault may be on this GPU or on the peer it links to.")),
            Map.entry(79, new Xid("GPU_HAS_FALLEN_OFF_THE_BUS",
                    "The GPU dropped off the PCIe bus and is unreachable; the node needs a restart, check the kernel's PCI messages.")),
            Map.entry(92, new Xid("EXCESSIVE_SBE_INTERRUPTS",
                    "An unusually high rate of corrected single-bit ECC errors; watch the trend.")),
            Map.entry(94, new Xid("CONTAINED_ERROR",
                    "A memory error was contained to one application, which must restart; reset the GPU when convenient.")),
            Map.entry(95, new Xid("UNCONTAINED_ERROR",
                    "A memory error could not be contained to one application; every process on the GPU is affected, reset it.")),
            Map.entry(109, new Xid("CTXSW_TIMEOUT", "A context switch timed out; reset the GPU.")),
            Map.entry(119, new Xid("GSP_RPC_TIMEOUT",
                    "The driver timed out waiting for the GPU System Processor firmware; reset the GPU, power-cycle if it persists.")),
            Map.entry(120, new Xid("GSP_ERROR",
                    "The GPU System Processor firmware reported an error; reset the GPU, power-cycle if it persists.")),
            Map.entry(137, new Xid("NVLINK_PRIV_ERR",
                    "An illegal peer-to-peer access over NVLink, usually an application bug.")),
            Map.entry(140, new Xid("ECC_ESCAPE", "An ECC error escaped detection by the usual paths; reset the GPU.")),
            Map.entry(154, new Xid("GPU_RECOVERY_ACTION_CHANGED",
                    "The driver changed the recovery action the GPU needs (for example to a GPU reset or a node reboot).")));

    private XidCodes() {}

    /** Returns what we know of a code, or null. */
    static Xid lookup(int code) {
        return CODES.get(code);
    }
}
