package dev.crashlab.parse.model;

import dev.crashlab.fact.SourceRef;
import java.util.List;

/**
 * One layer row of a {@code model.summary()} table.
 *
 * @param name the layer's name
 * @param type the class name in parentheses; may be cut short where Keras 2.0 truncated the column
 * @param outputShape the output shape, batch first (null entries for {@code None})
 * @param params the {@code Param #} count; null where the row was cut before it
 * @param connectedTo the layers named in a functional summary's {@code Connected to} column (first first)
 * @param source where the row was read
 */
record SummaryRow(String name, String type, List<Integer> outputShape, Long params, List<String> connectedTo,
        SourceRef source) {}
