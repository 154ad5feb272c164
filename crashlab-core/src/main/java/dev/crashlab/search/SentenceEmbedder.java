package dev.crashlab.search;

/**
 * Turns a text into a unit-length vector: the dot product of two such vectors (their cosine) says how close in
 * meaning the texts are, whatever words they use.
 *
 * <p>NOTE: implementations are thread-safe; the same text always gives the same vector.
 */
public interface SentenceEmbedder {

    /** The length of every vector. */
    int dimension();

    /** The unit-length vector of {@code text}. */
    float[] embed(String text);

    /** The dot product of two vectors of the same length (the cosine of two unit vectors). */
    static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }
}
