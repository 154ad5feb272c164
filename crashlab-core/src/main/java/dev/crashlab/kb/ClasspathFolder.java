package dev.crashlab.kb;

import java.io.IOException;
import java.net.JarURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Lists the files directly inside a class-path folder, whether it lies in a directory (tests, dev mode)
 * or a jar (the packaged app, the CLI), so data shipped as resources (KB articles, compat tables, fact
 * classes) can be enumerated without an index file.
 */
public final class ClasspathFolder {

    private ClasspathFolder() {}

    /**
     * Returns the names (not paths) of the files directly under {@code folder} (e.g. {@code crashlab/kb-articles}),
     * looking through the class loader of {@code anchor} and the jar or directory {@code anchor} was loaded from.
     */
    public static Set<String> list(Class<?> anchor, String folder) {
        Set<String> names = new TreeSet<>();
        try {
            ClassLoader cl = anchor.getClassLoader();
            List<URL> urls = cl == null ? List.of() : Collections.list(cl.getResources(folder));
            for (URL u : urls) {
                scanUrl(u, folder, names);
            }
            if (anchor.getProtectionDomain().getCodeSource() != null) {
                scanCodeSource(anchor.getProtectionDomain().getCodeSource().getLocation(), folder, names);
            }
        } catch (IOException | RuntimeException e) {
            // a class path we cannot walk lists nothing; callers report an empty folder
        }
        return names;
    }

    private static void scanUrl(URL u, String folder, Set<String> names) throws IOException {
        switch (u.getProtocol()) {
            case "file" -> scanDirectory(Path.of(URI.create(u.toString())), names);
            case "jar" -> {
                if (u.openConnection() instanceof JarURLConnection jc) {
                    jc.setUseCaches(false);
                    try (JarFile jar = jc.getJarFile()) {
                        scanJar(jar, folder, names);
                    }
                }
            }
            default -> { }
        }
    }

    private static void scanCodeSource(URL location, String folder, Set<String> names) throws IOException {
        if (location == null || !"file".equals(location.getProtocol())) {
            return;
        }
        Path p = Path.of(URI.create(location.toString()));
        if (Files.isDirectory(p)) {
            scanDirectory(p.resolve(folder), names);
        } else if (Files.isRegularFile(p)) {
            try (JarFile jar = new JarFile(p.toFile())) {
                scanJar(jar, folder, names);
            }
        }
    }

    private static void scanDirectory(Path dir, Set<String> names) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(Files::isRegularFile).forEach(f -> names.add(f.getFileName().toString()));
        }
    }

    private static void scanJar(JarFile jar, String folder, Set<String> names) {
        String prefix = folder.endsWith("/") ? folder : folder + "/";
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
            JarEntry entry = e.nextElement();
            String n = entry.getName();
            if (!entry.isDirectory() && n.startsWith(prefix) && n.indexOf('/', prefix.length()) < 0) {
                names.add(n.substring(prefix.length()));
            }
        }
    }
}
