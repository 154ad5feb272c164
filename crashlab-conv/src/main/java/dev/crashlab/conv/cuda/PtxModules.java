package dev.crashlab.conv.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;

/** Reads the committed PTX modules ({@code src/main/resources/cuda/*.ptx}, built by {@code scripts/build-ptx}). */
public final class PtxModules {

    /** Every module, one per kernel pass. */
    public static final List<String> NAMES = Arrays.stream(KernelPass.values()).map(p -> p.module).toList();

    private PtxModules() {
    }

    /** The module's PTX text as bytes. */
    public static byte[] text(String module) {
        String resource = "/cuda/" + module + ".ptx";
        try (InputStream in = PtxModules.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("PTX module " + resource + " is not on the class path (run scripts/build-ptx)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + resource, e);
        }
    }

    /** The module's PTX with a terminating NUL, as {@code cuModuleLoadData} reads a PTX image. */
    static byte[] image(String module) {
        byte[] text = text(module);
        return Arrays.copyOf(text, text.length + 1);
    }
}
