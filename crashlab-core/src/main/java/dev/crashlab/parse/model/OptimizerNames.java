package dev.crashlab.parse.model;

import java.util.Locale;
import java.util.Map;

/** Normalises an optimizer's spelling ({@code 'adam'} in {@code compile()}) to its class name ({@code Adam}). */
final class OptimizerNames {

    private static final Map<String, String> CLASSES = Map.ofEntries(
            Map.entry("adam", "Adam"), Map.entry("adamw", "AdamW"), Map.entry("sgd", "SGD"),
            Map.entry("rmsprop", "RMSprop"), Map.entry("adagrad", "Adagrad"), Map.entry("adadelta", "Adadelta"),
            Map.entry("adamax", "Adamax"), Map.entry("nadam", "Nadam"), Map.entry("ftrl", "Ftrl"),
            Map.entry("lion", "Lion"), Map.entry("adafactor", "Adafactor"));

    private OptimizerNames() {}

    /** The class name of a known optimizer however spelled; other names unchanged. */
    static String normalise(String name) {
        return name == null ? null : CLASSES.getOrDefault(name.toLowerCase(Locale.ROOT), name);
    }
}
