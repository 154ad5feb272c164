package dev.crashlab.kb;

import java.util.List;

/**
 * The ordered steps that fix a cause on one platform.
 *
 * @param platform {@code any}, {@code windows}, {@code linux}, {@code wsl2} or {@code macos}
 * @param steps what to do, in order
 */
public record Remedy(String platform, List<String> steps) {
    public Remedy {
        steps = List.copyOf(steps);
    }
}
