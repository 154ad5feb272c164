package dev.crashlab.collector;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the Linux bundle collector for real against a PATH of stub tools ({@code nvidia-smi}, {@code python},
 * {@code dmesg}, {@code hostname}) that print our own fixtures, uploads the zip it writes, and reads the facts
 * back; and checks that the server hands out the scripts.
 *
 * <p>NOTE: the stubs print a user name and a host name on purpose: the collector must have replaced both
 * before zipping. Coreutils, sed, grep and zip come from the real system ({@code /usr/bin:/bin}).
 */
@QuarkusTest
class CollectorScriptTest {

    static final Path SCRIPT = Path.of("collector/collect-crash-bundle.sh");
    static final Path FIXTURES = Path.of("crashlab-core/src/test/resources/fixtures").toAbsolutePath();
    static final String USER = "aliceq";
    static final String HOST = "gpu-box-17";
    static final String LOG = """
            Epoch 1/10
            2026-11-20 10:01:02.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 21000 MB memory
            Traceback (most recent call last):
              File "/home/aliceq/project/train.py", line 42, in <module>
                model.fit(x, y, batch_size=64)
            RuntimeError: CUDA error: an illegal memory access was encountered
            Killed
            """;

    @TempDir
    Path tmp;

    @Test
    void collectsRedactsZipsAndTheUploadYieldsFacts() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "needs bash");
        Path stubs = stubs();
        Path home = Files.createDirectories(tmp.resolve("home/" + USER));
        Path log = home.resolve("train.log");
        Files.writeString(log, LOG);
        Path zip = tmp.resolve("bundle.zip");

        Run run = collector(stubs.toString() + ":/usr/bin:/bin", home, "-o", zip.toString(), log.toString());

        assertThat(run.exit).as(run.output).isZero();
        Map<String, String> files = unzip(zip);
        assertThat(files.keySet()).as(run.output).contains("train.log", "nvidia-smi.txt", "nvidia-smi-q.xml",
                "env.txt", "pip-list.txt", "torch-collect-env.txt", "kernel-gpu-oom.log", "collector.txt");
        assertThat(files.get("collector.txt"))
                .contains("not collected: conda list (conda not found)")
                .contains("not collected: TensorFlow build info")
                .contains("could not collect nvcc -V: nvcc not found")
                .contains("redacted the user name");
        files.forEach((name, text) -> {
            assertThat(text).as(name + " must be redacted").doesNotContain(USER).doesNotContain(HOST);
        });
        assertThat(files.get("train.log")).contains("/home/<user>/project/train.py");
        assertThat(files.get("kernel-gpu-oom.log")).contains("Xid").contains("<host>").doesNotContain("usb 1-1");
        assertThat(files.get("env.txt")).contains("driver: 535.183.01").contains("gpu: NVIDIA L4 23034 MiB")
                .contains("python: 3.10.12");

        JsonPath facts = uploadAndReadFacts(Files.readAllBytes(zip));
        Map<String, String> typeByFile = new LinkedHashMap<>();
        List<Map<String, Object>> artifacts = facts.getList("artifacts");
        for (Map<String, Object> a : artifacts) {
            String path = (String) a.get("path");
            typeByFile.put(path.substring(path.lastIndexOf('/') + 1), (String) a.get("type"));
        }
        assertThat(typeByFile).containsEntry("nvidia-smi.txt", "NVIDIA_SMI_TABLE")
                .containsEntry("nvidia-smi-q.xml", "NVIDIA_SMI_XML")
                .containsEntry("pip-list.txt", "PIP_LIST")
                .containsEntry("torch-collect-env.txt", "TORCH_COLLECT_ENV")
                .containsEntry("kernel-gpu-oom.log", "KERNEL_LOG")
                .containsEntry("env.txt", "ENV_KEY_VALUE")
                .containsEntry("train.log", "CONSOLE_LOG");
        List<String> kinds = facts.getList("artifacts.facts.flatten().kind");
        assertThat(kinds).contains("GpuDevice", "XidEvent", "VersionFact", "ExitStatus", "Platform", "HostOomKill");
        assertThat(facts.getList("artifacts.facts.flatten().findAll { it.kind == 'GpuDevice' }.name", String.class))
                .contains("NVIDIA L4");
        assertThat(facts.getList("artifacts.facts.flatten().findAll { it.kind == 'XidEvent' }.code", Integer.class))
                .contains(79);

        Set<String> hostFlags = cpuFlagsOfThisMachine();
        List<List<String>> platformFlags = facts.getList(
                "artifacts.findAll { it.path.endsWith('/env.txt') }.facts.flatten().findAll { it.kind == 'Platform' }.cpuFlags");
        assertThat(platformFlags).as(facts.prettify()).hasSize(1);
        assertThat(new TreeSet<>(platformFlags.get(0))).isEqualTo(hostFlags);
    }

    @Test
    void withNothingInstalledItStillWritesABundleThatSaysWhatIsMissing() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty-bin"));
        link(empty, "bash", "sed", "grep", "cat", "date", "mktemp", "rm", "mkdir", "cp", "basename", "head", "tail",
                "tr", "uname", "zip", "id", "timeout");
        Path home = Files.createDirectories(tmp.resolve("home/" + USER));
        Path zip = tmp.resolve("bare.zip");

        Run run = collector(empty.toString(), home, "-o", zip.toString(), tmp.resolve("no-such.log").toString());

        assertThat(run.exit).as(run.output).isZero();
        String report = unzip(zip).get("collector.txt");
        assertThat(report).contains("could not collect log ").contains("not a readable file")
                .contains("could not collect nvidia-smi: nvidia-smi not found")
                .contains("could not collect Python, pip list and framework versions");
        assertThat(unzip(zip)).containsKey("env.txt");
    }

    @Test
    void rejectsAnUnknownOptionWithItsName() throws Exception {
        Run run = collector("/usr/bin:/bin", tmp, "--frobnicate");
        assertThat(run.exit).isEqualTo(2);
        assertThat(run.output).contains("unknown option --frobnicate");
    }

    @Test
    void theServerHandsOutBothScriptsByteForByte() throws Exception {
        for (String name : List.of("collect-crash-bundle.sh", "collect-crash-bundle.ps1")) {
            byte[] served = given().get("/collector/" + name).then().statusCode(200)
                    .header("Content-Disposition", "attachment; filename=\"" + name + "\"")
                    .extract().asByteArray();
            assertThat(served).isEqualTo(Files.readAllBytes(Path.of("collector", name)));
        }
        given().get("/collector/secrets.txt").then().statusCode(404).contentType("application/problem+json");
        assertThat(given().get("/collector/").then().statusCode(200).extract().asString())
                .contains("collect-crash-bundle.sh").contains("collect-crash-bundle.ps1");
    }

    @io.quarkus.test.common.http.TestHTTPResource("/")
    java.net.URL base;

    @Test
    void uploadsWithServerAndTokenAsTheTokensOwner() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/curl")), "needs curl");
        String user = "collector-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        String password = "pw-" + java.util.UUID.randomUUID();
        given().contentType("application/json").body(Map.of("username", user, "password", password, "roles", List.of("reporter")))
                .post("/api/admin/users").then().statusCode(201);
        String session = given().header("Authorization", "").contentType("application/json")
                .body(Map.of("username", user, "password", password)).post("/api/auth/login").then().statusCode(200)
                .extract().cookie("crashlab_session");
        String token = given().header("Authorization", "").cookie("crashlab_session", session).contentType("application/json")
                .body(Map.of("name", "collector", "roles", List.of("reporter"))).post("/api/tokens").then().statusCode(201)
                .extract().path("secret");
        Path home = Files.createDirectories(tmp.resolve("home/" + USER));
        Path log = home.resolve("train.log");
        Files.writeString(log, LOG);
        String server = base.toString().replaceAll("/$", "");

        Run refused = collector(stubs().toString() + ":/usr/bin:/bin", home, "-o", tmp.resolve("a.zip").toString(),
                "--server", server, "--token", "not-a-token", log.toString());
        assertThat(refused.exit).as(refused.output).isEqualTo(1);
        assertThat(refused.output).contains("HTTP 401").contains("the bundle is still in");

        Run run = collector(stubs().toString() + ":/usr/bin:/bin", home, "-o", tmp.resolve("b.zip").toString(),
                "--server", server, "--token", token, log.toString());
        assertThat(run.exit).as(run.output).isZero();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("uploaded as .*/bundles/(\\d+)").matcher(run.output);
        assertThat(m.find()).as(run.output).isTrue();
        long id = Long.parseLong(m.group(1));
        given().get("/api/bundles/" + id).then().statusCode(200);
        // the audit trail names the token's owner as the uploader
        given().queryParam("actor", user).queryParam("action", "bundle.upload").get("/api/audit").then().statusCode(200)
                .body("items.target", org.hamcrest.Matchers.hasItem("bundle " + id));
    }

    // ---- helpers

    record Run(int exit, String output) {}

    private Run collector(String path, Path home, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("/bin/bash", SCRIPT.toAbsolutePath().toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(tmp.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(Map.of("PATH", path, "HOME", home.toString(), "USER", USER, "TMPDIR", tmp.toString(),
                "LANG", "C.UTF-8"));
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the collector finishes").isTrue();
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** Writes stub tools that print our fixtures, the way the real tools print on a GPU machine. */
    private Path stubs() throws IOException {
        Path bin = Files.createDirectories(tmp.resolve("stub-bin"));
        stub(bin, "nvidia-smi", """
                case "$*" in
                  "") cat '%s' ;;
                  "-q -x") cat '%s' ;;
                  *driver_version*) echo "535.183.01"; echo "535.183.01" ;;
                  *name,memory.total*) echo "NVIDIA L4, 23034 MiB"; echo "NVIDIA L4, 23034 MiB" ;;
                  *) echo "stub nvidia-smi: unexpected $*" >&2; exit 9 ;;
                esac
                """.formatted(FIXTURES.resolve("nvidia-smi-table/modern-550-two-gpus.txt"),
                FIXTURES.resolve("nvidia-smi-xml/v12-two-l4.xml")));
        stub(bin, "python", """
                case "$*" in
                  "-V") echo "Python 3.10.12" ;;
                  "-m pip list"*) cat '%s' ;;
                  "-c import torch") exit 0 ;;
                  "-m torch.utils.collect_env") cat '%s' ;;
                  "-c import tensorflow") echo "ModuleNotFoundError: No module named 'tensorflow'" >&2; exit 1 ;;
                  *) echo "stub python: unexpected $*" >&2; exit 9 ;;
                esac
                """.formatted(FIXTURES.resolve("pip-list/columns.txt"),
                FIXTURES.resolve("torch-collect-env/linux-two-gpus.txt")));
        stub(bin, "dmesg", """
                echo "[    1.000000] usb 1-1: new high-speed USB device number 2 using xhci_hcd"
                echo "[  812.331207] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus."
                echo "[  813.000000] systemd-journald[310]: %s: watchdog ok"
                echo "[ 9000.100000] NVRM: %s GPU 0000:3b:00.0: GPU has fallen off the bus."
                echo "[ 9100.000000] Out of memory: Killed process 4242 (python) total-vm:81234567kB, anon-rss:60123456kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:123456kB oom_score_adj:0"
                """.formatted(HOST, HOST));
        stub(bin, "hostname", "echo " + HOST + "\n");
        return bin;
    }

    private static void stub(Path bin, String name, String body) throws IOException {
        Path f = bin.resolve(name);
        Files.writeString(f, "#!/bin/bash\n" + body);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static void link(Path bin, String... tools) throws IOException {
        for (String tool : tools) {
            for (String dir : List.of("/usr/bin", "/bin")) {
                Path real = Path.of(dir, tool);
                if (Files.isExecutable(real)) {
                    Files.createSymbolicLink(bin.resolve(tool), real);
                    break;
                }
            }
        }
    }

    private static Map<String, String> unzip(Path zip) throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                if (!e.isDirectory()) {
                    String name = e.getName().substring(e.getName().lastIndexOf('/') + 1);
                    files.put(name, new String(readAll(in), StandardCharsets.UTF_8));
                }
            }
        }
        return files;
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toByteArray();
    }

    private static JsonPath uploadAndReadFacts(byte[] zip) {
        int id = given().multiPart("file", "crash-bundle.zip", zip, "application/zip")
                .post("/api/bundles").then().statusCode(201).extract().path("id");
        dev.crashlab.testing.Ready.await(id); // the facts are served once read; until then, 409 with the progress
        return given().get("/api/bundles/" + id + "/facts").then().statusCode(200).extract().jsonPath();
    }

    /** The flags the collector keeps, as this machine's /proc/cpuinfo states them. */
    private static Set<String> cpuFlagsOfThisMachine() throws IOException {
        Set<String> keep = Set.of("sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512cd",
                "avx512dq", "avx512vl", "avx512_vnni", "avx512_bf16", "avx_vnni", "amx_bf16", "amx_tile", "amx_int8");
        Set<String> out = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
            if (line.toLowerCase().startsWith("flags")) {
                for (String f : line.substring(line.indexOf(':') + 1).trim().split("\\s+")) {
                    if (keep.contains(f)) {
                        out.add(f);
                    }
                }
                break;
            }
        }
        return out;
    }
}
