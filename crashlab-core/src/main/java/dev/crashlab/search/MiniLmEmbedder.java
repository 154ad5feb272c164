package dev.crashlab.search;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The sentence-embedding model all-MiniLM-L6-v2 (384 dimensions, mean pooling), run in-process by ONNX Runtime from
 * the copy inside langchain4j's jar: nothing is downloaded. The model loads once per JVM, on the first
 * {@link #embed} (about 90 MB of weights read from the jar; 0.3 GB of heap and 0.4 GB of native memory at peak,
 * measured on this project's machine), so commands that never embed pay nothing.
 *
 * <p>NOTE: a bounded cache keeps the vectors of recent texts, so a reloaded knowledge base embeds only the
 * passages that changed. Thread-safe.
 */
public final class MiniLmEmbedder implements SentenceEmbedder {

    /** The model's vector length. */
    public static final int DIMENSION = 384;
    /** The most texts whose vectors are kept (1.5 KiB each). */
    static final int CACHE = 4096;

    private static final MiniLmEmbedder SHARED = new MiniLmEmbedder();

    private final Object lock = new Object();
    private volatile EmbeddingModel model;
    private volatile long loadNanos = -1;
    private final Map<String, float[]> cache = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
            return size() > CACHE;
        }
    };

    private MiniLmEmbedder() {}

    /** The one instance of the JVM (one copy of the model). */
    public static MiniLmEmbedder shared() {
        return SHARED;
    }

    @Override
    public int dimension() {
        return DIMENSION;
    }

    @Override
    public float[] embed(String text) {
        String t = text == null ? "" : text;
        synchronized (cache) {
            float[] hit = cache.get(t);
            if (hit != null) {
                return hit;
            }
        }
        float[] v = normalize(model().embed(t).content().vector());
        synchronized (cache) {
            cache.put(t, v);
        }
        return v;
    }

    /** Whether the model has been loaded in this JVM. */
    public boolean loaded() {
        return model != null;
    }

    /** How long loading the model took, in milliseconds, or -1 before it is loaded. */
    public long loadMillis() {
        return loadNanos < 0 ? -1 : loadNanos / 1_000_000;
    }

    private EmbeddingModel model() {
        EmbeddingModel m = model;
        if (m == null) {
            synchronized (lock) {
                m = model;
                if (m == null) {
                    long t0 = System.nanoTime();
                    // the calling thread runs each text: no pool of the library's own
                    m = new AllMiniLmL6V2EmbeddingModel(Runnable::run);
                    loadNanos = System.nanoTime() - t0;
                    model = m;
                }
            }
        }
        return m;
    }

    private static float[] normalize(float[] v) {
        double n = 0;
        for (float x : v) {
            n += x * x;
        }
        if (n == 0) {
            return v.clone();
        }
        float[] out = new float[v.length];
        double inv = 1 / Math.sqrt(n);
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (v[i] * inv);
        }
        return out;
    }
}
