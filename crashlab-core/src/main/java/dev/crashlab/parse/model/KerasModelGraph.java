package dev.crashlab.parse.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Walks a Keras model description (Sequential or Functional, Keras 1/2/3 and TF.js spellings, containers
 * nested in containers) in data-flow order, carrying tensor shapes from the inputs to every layer, and
 * hands each convolution with its input and output shape to a sink.
 *
 * <p>NOTE: a layer that appears in several nodes (a shared layer, a nested model called twice) is handed
 * over once per node. Shapes the file states (an input layer's {@code batch_input_shape}, Keras 3 node
 * tensors' {@code shape}, {@code build_config}) win over computed ones; a computed shape is used where the
 * file states none. References to missing layers or nodes make shapes unknown, never an error.
 */
final class KerasModelGraph {

    /** The deepest container nesting followed; real models nest two or three levels. */
    static final int MAX_NESTING = 32;
    /** The most layers read in one container. */
    static final int MAX_LAYERS = 100_000;

    private static final Set<String> CONTAINERS = Set.of("Sequential", "Functional", "Model");

    /** Receives each convolution of the model. */
    interface Sink {
        /** Takes one convolution, read from {@code layer} (the layer's JSON object). */
        void conv(ConvDraft conv, JsonNode layer);
    }

    private final Sink sink;

    KerasModelGraph(Sink sink) {
        this.sink = sink;
    }

    /** Tells whether {@code node} looks like a Keras model ({@code class_name} + {@code config} with layers). */
    static boolean isModel(JsonNode node) {
        if (node == null || !node.isObject()) {
            return false;
        }
        JsonNode config = node.get("config");
        return node.path("class_name").isTextual() && config != null
                && (config.isArray() || config.path("layers").isArray());
    }

    /**
     * Walks the model {@code model} whose layers get the prefix {@code prefix}; {@code inputs} are the shapes
     * fed to it by an outer graph (empty at the top). Returns the model's output shapes.
     */
    List<List<Integer>> walk(JsonNode model, String prefix, List<List<Integer>> inputs, int depth) {
        if (depth > MAX_NESTING) {
            return List.of();
        }
        JsonNode config = model.get("config");
        JsonNode layers = config.isArray() ? config : config.path("layers");
        boolean functional = !config.isArray() && config.path("input_layers").isArray()
                && !"Sequential".equals(model.path("class_name").asText());
        return functional ? functional(config, layers, prefix, inputs, depth) : sequential(layers, prefix, inputs, depth);
    }

    private List<List<Integer>> sequential(JsonNode layers, String prefix, List<List<Integer>> inputs, int depth) {
        List<Integer> current = inputs.isEmpty() ? null : inputs.get(0);
        int n = 0;
        for (JsonNode layer : layers) {
            if (++n > MAX_LAYERS) {
                break;
            }
            if (!layer.isObject()) {
                current = null;
                continue;
            }
            JsonNode cfg = layer.path("config");
            List<Integer> stated = statedInput(layer, cfg);
            if (stated != null) {
                current = stated;
            }
            current = apply(layer, Collections.singletonList(current), stated != null, prefix, depth);
        }
        List<List<Integer>> out = new ArrayList<>();
        out.add(current);
        return out;
    }

    /** A layer's output on the given input shapes (one node), handing convolutions to the sink. */
    private List<Integer> apply(JsonNode layer, List<List<Integer>> ins, boolean inputStated, String prefix, int depth) {
        String className = layer.path("class_name").asText(null);
        JsonNode cfg = layer.path("config");
        if (className != null && CONTAINERS.contains(className) && isModel(layer)) {
            String name = layer.path("name").isTextual() ? layer.path("name").asText() : KerasConfig.text(cfg, "name");
            List<List<Integer>> outs = walk(layer, prefix + (name == null ? "" : name + "/"), ins, depth + 1);
            return outs.isEmpty() ? null : outs.get(0);
        }
        if ("InputLayer".equals(className)) {
            List<Integer> s = KerasConfig.shape(KerasConfig.first(cfg, "batch_input_shape", "batch_shape"));
            return s != null ? s : ins.isEmpty() ? null : ins.get(0);
        }
        ConvDraft conv = KerasConvLayer.read(className, cfg);
        if (conv != null) {
            if (conv.name == null) {
                conv.name = layer.path("name").asText(null);
            }
            conv.name = conv.name == null ? null : prefix + conv.name;
            List<Integer> out = ins.isEmpty() || ins.get(0) == null ? null
                    : KerasConvLayer.connect(conv, ins.get(0), inputStated, cfg);
            sink.conv(conv, layer);
            return out;
        }
        return KerasShapeRules.output(className, cfg, ins);
    }

    /** The input shape a layer states for itself ({@code batch_input_shape} on a Sequential's first layer, {@code build_config}). */
    private static List<Integer> statedInput(JsonNode layer, JsonNode cfg) {
        if ("InputLayer".equals(layer.path("class_name").asText())) {
            return null;
        }
        List<Integer> s = KerasConfig.shape(KerasConfig.first(cfg, "batch_input_shape", "batch_shape"));
        if (s == null) {
            JsonNode build = layer.path("build_config").path("input_shape");
            if (build.isArray() && build.size() > 0 && !build.get(0).isArray()) {
                s = KerasConfig.shape(build);
            }
        }
        return s;
    }

    /** One inbound tensor reference: the layer, its node, the tensor, and the shape the file states for it. */
    private record TensorRef(String layer, int node, int tensor, List<Integer> shape) {}

    private List<List<Integer>> functional(JsonNode config, JsonNode layers, String prefix, List<List<Integer>> inputs,
            int depth) {
        Map<String, JsonNode> byName = new HashMap<>();
        List<JsonNode> order = new ArrayList<>();
        for (JsonNode layer : layers) {
            if (order.size() >= MAX_LAYERS) {
                break;
            }
            String name = layer.path("name").asText(null);
            if (name == null) {
                name = KerasConfig.text(layer.path("config"), "name");
            }
            if (name != null && layer.isObject()) {
                byName.putIfAbsent(name, layer);
                order.add(layer);
            }
        }
        // outputs.get(layer name) holds one shape per node, filled as nodes are computed
        Map<String, List<List<Integer>>> outputs = new HashMap<>();
        Map<String, Integer> done = new HashMap<>();
        // the inputs an outer graph feeds in replace the input layers' own shapes, in input_layers order
        List<String> inputNames = refNames(config.path("input_layers"));
        Map<String, List<Integer>> fed = new HashMap<>();
        for (int i = 0; i < inputNames.size() && i < inputs.size(); i++) {
            if (inputs.get(i) != null) {
                fed.put(inputNames.get(i), inputs.get(i));
            }
        }
        // a worklist rather than passes over the list: a layer blocked on an input waits on that input's layer
        // and is queued again when that layer's node is done, so hostile orderings cost linear time
        Deque<JsonNode> queue = new ArrayDeque<>(order);
        Map<String, List<JsonNode>> waiting = new HashMap<>();
        while (!queue.isEmpty()) {
            JsonNode layer = queue.poll();
            String name = nameOf(layer);
            List<List<TensorRef>> nodes = inboundNodes(layer.path("inbound_nodes"));
            int next = done.getOrDefault(name, 0);
            boolean progress = false;
            if (nodes.isEmpty() && next == 0) {
                // an input layer (or a layer nobody feeds)
                List<Integer> shape = fed.get(name);
                outputs.computeIfAbsent(name, k -> new ArrayList<>()).add(shape != null ? shape
                        : apply(layer, new ArrayList<>(), false, prefix, depth));
                done.put(name, 1);
                progress = true;
            }
            while (next < nodes.size()) {
                String blocker = blocker(nodes.get(next), byName, done);
                if (blocker != null) {
                    waiting.computeIfAbsent(blocker, k -> new ArrayList<>()).add(layer);
                    break;
                }
                List<TensorRef> refs = nodes.get(next);
                List<List<Integer>> ins = new ArrayList<>(refs.size());
                boolean stated = true;
                for (TensorRef r : refs) {
                    List<Integer> computed = shapeOf(r, outputs);
                    ins.add(r.shape() != null ? r.shape() : computed);
                    stated &= r.shape() != null;
                }
                outputs.computeIfAbsent(name, k -> new ArrayList<>()).add(apply(layer, ins, stated, prefix, depth));
                next++;
                done.put(name, next);
                progress = true;
            }
            List<JsonNode> woken = progress ? waiting.remove(name) : null;
            if (woken != null) {
                queue.addAll(woken);
            }
        }
        List<List<Integer>> result = new ArrayList<>();
        for (TensorRef r : refs(config.path("output_layers"))) {
            result.add(shapeOf(r, outputs));
        }
        return result;
    }

    private static String nameOf(JsonNode layer) {
        String name = layer.path("name").asText(null);
        return name != null ? name : KerasConfig.text(layer.path("config"), "name");
    }

    /** The layer a node still waits for, or null when every input it names is computed (or names no layer). */
    private static String blocker(List<TensorRef> node, Map<String, JsonNode> byName, Map<String, Integer> done) {
        for (TensorRef r : node) {
            // a reference to a layer that does not exist never becomes ready: it counts as ready with unknown shape
            if (byName.containsKey(r.layer()) && done.getOrDefault(r.layer(), 0) == 0) {
                return r.layer();
            }
        }
        return null;
    }

    /**
     * The shape of a referenced tensor: the referenced node's output, or, where the reference names a node the
     * file does not list (TF.js writes {@code ["sequential_3", 1, 0]} with one node), the layer's last one.
     */
    private static List<Integer> shapeOf(TensorRef r, Map<String, List<List<Integer>>> outputs) {
        List<List<Integer>> nodes = outputs.get(r.layer());
        if (nodes == null || nodes.isEmpty()) {
            return null;
        }
        return r.node() >= 0 && r.node() < nodes.size() ? nodes.get(r.node()) : nodes.get(nodes.size() - 1);
    }

    private static List<String> refNames(JsonNode list) {
        List<String> names = new ArrayList<>();
        for (TensorRef r : refs(list)) {
            names.add(r.layer());
        }
        return names;
    }

    /** {@code [["name", node, tensor], ...]} (or a single {@code ["name", node, tensor]}) as references. */
    private static List<TensorRef> refs(JsonNode list) {
        List<TensorRef> out = new ArrayList<>();
        if (!list.isArray()) {
            return out;
        }
        if (list.size() > 0 && list.get(0).isTextual()) {
            TensorRef r = ref(list);
            if (r != null) {
                out.add(r);
            }
            return out;
        }
        for (JsonNode e : list) {
            TensorRef r = ref(e);
            if (r != null) {
                out.add(r);
            }
        }
        return out;
    }

    private static TensorRef ref(JsonNode e) {
        if (!e.isArray() || e.size() < 1 || !e.get(0).isTextual()) {
            return null;
        }
        return new TensorRef(e.get(0).asText(), e.path(1).asInt(0), e.path(2).asInt(0), null);
    }

    /**
     * A layer's inbound nodes, each a list of tensor references: Keras 1/2 and TF.js write
     * {@code [[["name", 0, 0, {}], ...], ...]}; Keras 3 writes {@code [{"args": [...], "kwargs": {...}}, ...]}
     * with {@code __keras_tensor__} objects carrying {@code keras_history} and {@code shape}.
     */
    private static List<List<TensorRef>> inboundNodes(JsonNode nodes) {
        List<List<TensorRef>> out = new ArrayList<>();
        if (!nodes.isArray()) {
            return out;
        }
        for (JsonNode node : nodes) {
            List<TensorRef> refs = new ArrayList<>();
            if (node.isObject()) {
                collectKerasTensors(node.path("args"), refs, 0);
                collectKerasTensors(node.path("kwargs"), refs, 0);
            } else if (node.isArray()) {
                refs.addAll(refs(node));
            }
            out.add(refs);
        }
        return out;
    }

    private static void collectKerasTensors(JsonNode v, List<TensorRef> into, int depth) {
        if (depth > 8 || v == null) {
            return;
        }
        if (v.isObject() && "__keras_tensor__".equals(v.path("class_name").asText())) {
            JsonNode c = v.path("config");
            JsonNode h = c.path("keras_history");
            if (h.isArray() && h.size() >= 1 && h.get(0).isTextual()) {
                into.add(new TensorRef(h.get(0).asText(), h.path(1).asInt(0), h.path(2).asInt(0),
                        KerasConfig.shape(c.get("shape"))));
            }
            return;
        }
        if (v.isArray() || v.isObject()) {
            for (JsonNode e : v) {
                collectKerasTensors(e, into, depth + 1);
            }
        }
    }
}
