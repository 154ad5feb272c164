package dev.crashlab.diagnose;

/**
 * The one extra artifact that would best tell the top two hypotheses apart.
 *
 * @param artifact what to upload ("`nvidia-smi -q` output")
 * @param why which hypotheses it separates and through which facts
 * @param between the two hypothesis ids it separates
 */
public record Ask(String artifact, String why, java.util.List<String> between) {}
