package dev.crashlab.kb;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Loads the knowledge base from a folder ({@code kb-articles/} beside the app) or from the copy packaged
 * in the jar, validating every article and collecting {@code file:line} problems.
 */
public final class KbLoader {

    /** Where the packaged copy of {@code kb-articles/} lives on the class path. */
    public static final String CLASSPATH_FOLDER = "crashlab/kb-articles";

    private final KbArticleReader reader;

    /** A loader that accepts these compat check ids. */
    public KbLoader(Set<String> compatChecks) {
        this.reader = new KbArticleReader(FactKinds.get(), compatChecks);
    }

    /**
     * The outcome of loading: the knowledge base of the valid articles, and the problems of the others.
     *
     * @param kb the valid articles
     * @param problems every validation error; the KB should be refused when this is not empty
     */
    public record Result(KnowledgeBase kb, List<KbProblem> problems) {
        public Result {
            problems = List.copyOf(problems);
        }

        /** Tells whether every article was valid. */
        public boolean ok() {
            return problems.isEmpty();
        }
    }

    /** Loads every {@code *.md} but {@code README.md} in a folder. */
    public Result load(Path folder) {
        Map<String, String> files = new LinkedHashMap<>();
        List<KbProblem> problems = new ArrayList<>();
        if (!Files.isDirectory(folder)) {
            problems.add(new KbProblem(folder.toString(), 0, "not a folder"));
            return new Result(new KnowledgeBase(List.of(), "", folder.toString()), problems);
        }
        try (Stream<Path> list = Files.list(folder)) {
            for (Path p : list.sorted().toList()) {
                String name = p.getFileName().toString();
                if (isArticle(name) && Files.isRegularFile(p)) {
                    files.put(name, Files.readString(p, StandardCharsets.UTF_8));
                }
            }
        } catch (IOException e) {
            problems.add(new KbProblem(folder.toString(), 0, "cannot read: " + e.getMessage()));
        }
        return load(files, folder.toString(), problems);
    }

    /** Loads the copy of the articles packaged on the class path. */
    public Result loadPackaged() {
        Map<String, String> files = new LinkedHashMap<>();
        for (String name : ClasspathFolder.list(KbLoader.class, CLASSPATH_FOLDER)) {
            if (isArticle(name)) {
                files.put(name, resource(CLASSPATH_FOLDER + "/" + name));
            }
        }
        return load(files, "classpath:" + CLASSPATH_FOLDER, new ArrayList<>());
    }

    /** Loads articles given as file name -> content (tests, uploads of a KB). */
    public Result load(Map<String, String> files, String origin, List<KbProblem> problems) {
        List<KbArticle> articles = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        MessageDigest sha = sha256();
        for (Map.Entry<String, String> f : new java.util.TreeMap<>(files).entrySet()) {
            sha.update(f.getKey().getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(f.getValue().getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            KbArticle a = reader.read(f.getKey(), f.getValue(), problems);
            if (a == null) {
                continue;
            }
            String other = seen.putIfAbsent(a.id(), f.getKey());
            if (other != null) {
                problems.add(new KbProblem(f.getKey(), 2, "duplicate id '" + a.id() + "' (also in " + other + ")"));
                continue;
            }
            articles.add(a);
        }
        articles.sort(Comparator.comparing(KbArticle::id));
        for (KbArticle a : articles) {
            if (a.specializes() != null && !seen.containsKey(a.specializes())) {
                problems.add(new KbProblem(a.file(), 2, "specializes: no article has the id '" + a.specializes() + "'"));
            }
        }
        return new Result(new KnowledgeBase(articles, HexFormat.of().formatHex(sha.digest()), origin), problems);
    }

    private static boolean isArticle(String name) {
        return name.endsWith(".md") && !name.equalsIgnoreCase("README.md");
    }

    static String resource(String path) {
        try (InputStream in = KbLoader.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IOException("missing resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
