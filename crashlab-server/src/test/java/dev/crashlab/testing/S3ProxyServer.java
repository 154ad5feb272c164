package dev.crashlab.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3 server for tests: S3Proxy ({@code org.gaul:s3proxy}) with its filesystem backend, in a JVM of its own
 * (its jclouds, Jetty and Guice would clash with the Quarkus test classpath). Its classpath comes from
 * {@code src/test/s3proxy/pom.xml}, resolved with {@code scripts/mvn dependency:build-classpath} once per build folder
 * (offline first, then online).
 */
public final class S3ProxyServer implements AutoCloseable {

    public static final String KEY = "crashlab-test-key";
    public static final String SECRET = "crashlab-test-secret";

    private final Process process;
    private final URI endpoint;
    private final Path root;

    private S3ProxyServer(Process process, URI endpoint, Path root) {
        this.process = process;
        this.endpoint = endpoint;
        this.root = root;
    }

    /** Starts one with an empty store under {@code target/s3proxy/}; waits until it answers (at most a minute). */
    public static S3ProxyServer start() throws IOException, InterruptedException {
        Path project = Path.of("").toAbsolutePath();
        String classpath = classpath(project);
        Path root = Files.createTempDirectory(Files.createDirectories(project.resolve("target/s3proxy")), "store-");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        URI endpoint = URI.create("http://127.0.0.1:" + port);
        Path props = root.resolve("s3proxy.properties");
        Files.createDirectories(root.resolve("data"));
        Files.writeString(props, String.join("\n",
                "s3proxy.endpoint=" + endpoint,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + KEY,
                "s3proxy.credential=" + SECRET,
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + root.resolve("data"), ""));
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", classpath, "org.gaul.s3proxy.Main", "--properties", props.toString());
        pb.environment().put("LOG_LEVEL", "warn");
        pb.redirectErrorStream(true).redirectOutput(root.resolve("s3proxy.log").toFile());
        Process p = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException("S3Proxy exited with " + p.exitValue() + ": " + Files.readString(root.resolve("s3proxy.log")));
            }
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return new S3ProxyServer(p, endpoint, root);
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        p.destroyForcibly();
        throw new IllegalStateException("S3Proxy did not listen on " + endpoint + " within 60 s");
    }

    private static S3ProxyServer shared;

    /**
     * One S3Proxy for every test class of this JVM that asks for it, each class on buckets of its own (a start costs
     * about 4 s of CPU); stopped when the JVM exits, never by a test.
     */
    public static synchronized S3ProxyServer shared() throws IOException, InterruptedException {
        if (shared == null || !shared.process.isAlive()) {
            S3ProxyServer s = start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> s.process.destroyForcibly(), "s3proxy-stop"));
            shared = s;
        }
        return shared;
    }

    private static synchronized String classpath(Path project) throws IOException, InterruptedException {
        Path file = project.resolve("target/s3proxy/classpath.txt");
        Path pom = project.resolve("crashlab-server/src/test/s3proxy/pom.xml");
        if (!Files.isRegularFile(file) || Files.getLastModifiedTime(file).compareTo(Files.getLastModifiedTime(pom)) < 0) {
            Files.createDirectories(file.getParent());
            Path log = file.resolveSibling("resolve.log");
            int rc = -1;
            for (boolean offline : new boolean[] {true, false}) {
                List<String> cmd = new ArrayList<>(List.of(project.resolve("scripts/mvn").toString(), "-q", "-B"));
                if (offline) {
                    cmd.add("-o");
                }
                cmd.addAll(List.of("-f", pom.toString(), "dependency:build-classpath", "-Dmdep.outputFile=" + file));
                Process p = new ProcessBuilder(cmd).directory(project.toFile()).redirectErrorStream(true)
                        .redirectOutput(log.toFile()).start();
                if (!p.waitFor(5, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                }
                rc = p.isAlive() ? -1 : p.exitValue();
                if (rc == 0) {
                    break;
                }
            }
            if (rc != 0) {
                throw new IllegalStateException("cannot resolve S3Proxy's classpath (" + log + "): " + Files.readString(log));
            }
        }
        return Files.readString(file).strip();
    }

    public URI endpoint() {
        return endpoint;
    }

    /** A server's settings for blobs under {@code blobs/} in this store's {@code bucket} (a mutable map: add to it). */
    public java.util.Map<String, String> serverSettings(String bucket) {
        return serverSettings(endpoint.toString(), "s3://" + bucket + "/blobs");
    }

    /**
     * A server's settings for the blob store {@code address} ({@code s3://bucket/prefix}) reached at {@code endpoint}
     * (this store, or a forwarder in front of it), with this store's keys, path-style (a mutable map: add to it).
     */
    public static java.util.Map<String, String> serverSettings(String endpoint, String address) {
        java.util.Map<String, String> m = new java.util.HashMap<>();
        m.put("crashlab.blob-store", address);
        m.put("crashlab.s3.endpoint", endpoint);
        m.put("crashlab.s3.region", "us-east-1");
        m.put("crashlab.s3.access-key-id", KEY);
        m.put("crashlab.s3.secret-access-key", SECRET);
        m.put("crashlab.s3.path-style", "true");
        return m;
    }

    /** A client for the test's own checks and set-up (path-style, the test credentials). */
    public S3Client client() {
        return S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
                // S3Proxy answers 501 to the newer checksum headers, as CrashLab's own client knows
                .requestChecksumCalculation(software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(software.amazon.awssdk.core.checksums.ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY, SECRET))).build();
    }

    /** Creates a bucket. */
    public void createBucket(String name) {
        try (S3Client c = client()) {
            c.createBucket(b -> b.bucket(name));
        }
    }

    /** Where the filesystem backend keeps the buckets (each a folder). */
    public Path dataDir() {
        return root.resolve("data");
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
