package dev.crashlab.crashes;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The facets of past crashes: the dimensions results are counted by, how a bundle's signature gives its values,
 * and the query clause that selects a value (what a click on a facet adds to the search).
 *
 * <p>NOTE: a value is indexed as {@code dim + '\0' + value} in one doc-values field, so one pass over the matching
 * documents counts every dimension.
 */
public final class CrashFacets {

    private CrashFacets() {
    }

    /** The dimensions shown beside results, in order. */
    public static final List<String> DIMENSIONS = List.of("cause", "gpu", "driver", "cuda", "framework", "os", "exit");
    /** The dimensions a group's correlations compare (the setting a crash happened in). */
    public static final List<String> SETTINGS = List.of("driver", "cuda", "gpu", "framework", "os");
    /** The dimension holding the group key. */
    public static final String GROUP = "group";

    static final char SEP = '\0';

    private static final Map<String, String> FRAMEWORKS = Map.of("tensorflow", "tensorflow", "tensorflow-gpu", "tensorflow",
            "torch", "torch", "keras", "keras", "jax", "jax");

    /** The facet values of a signature, {@code dim\0value}. */
    public static List<String> values(CrashSignature s, boolean confirmed) {
        Set<String> out = new LinkedHashSet<>();
        for (SignatureTerm t : s.terms()) {
            String kind = t.kind();
            String value = t.key().substring(Math.min(t.key().length(), kind.length() + 1));
            switch (kind) {
                case "cause" -> out.add("cause" + SEP + value);
                case "gpu" -> out.add("gpu" + SEP + t.label());
                case "nvidia-driver" -> out.add("driver" + SEP + value);
                case "cuda-runtime", "cuda-toolkit" -> out.add("cuda" + SEP + value);
                case "os" -> out.add("os" + SEP + value);
                case "exit" -> out.add("exit" + SEP + value);
                case "verdict" -> out.add("verdict" + SEP + value); // not a listed dimension: for the trends
                default -> {
                    String fw = FRAMEWORKS.get(kind);
                    if (fw != null) {
                        out.add("framework" + SEP + fw + " " + value);
                    }
                }
            }
        }
        String group = s.groupKey();
        if (group != null) {
            out.add(GROUP + SEP + group);
        }
        out.add("confirmed" + SEP + (confirmed ? "yes" : "no"));
        return new ArrayList<>(out);
    }

    /** The query clause that selects {@code value} of {@code dim}. */
    public static String filter(String dim, String value) {
        if (dim.equals("framework")) {
            int space = value.indexOf(' ');
            return space < 0 ? quote(value) : value.substring(0, space) + ":" + quote(value.substring(space + 1));
        }
        return dim + ":" + quote(value);
    }

    static String quote(String v) {
        return v.matches("[A-Za-z0-9._+*-]+") ? v : "\"" + v.replace("\"", "") + "\"";
    }
}
