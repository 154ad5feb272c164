package dev.crashlab.cli;

import dev.crashlab.unpack.BundleRejectedException;
import dev.crashlab.unpack.BundleUnpacker;
import dev.crashlab.unpack.StagedFile;
import dev.crashlab.unpack.UnpackLimits;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Shows what the server would make of a bundle: unpacks it with the upload limits and types each file. */
@Command(name = "inspect",
        description = {"Unpack a bundle (archives or loose files) as an upload would, and print each file's detected type.",
                       "Nothing is stored; exits 2 if the server would refuse the upload, and says why."})
final class InspectCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "an archive (zip, tar, tar.gz, gz) or loose files")
    List<Path> files;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        for (Path f : files) {
            if (!Files.isRegularFile(f)) {
                err.println("crashlab inspect: no such file: " + f);
                return 2;
            }
        }
        Path staging = Files.createTempDirectory("crashlab-inspect-");
        ArtifactSniffer sniffer = new ArtifactSniffer();
        try (BundleUnpacker unpacker = new BundleUnpacker(UnpackLimits.defaults(), staging.resolve("files"))) {
            for (Path f : files) {
                unpacker.add(f.getFileName().toString(), f, files.size() == 1);
            }
            out.printf("%-28s %12s  %s%n", "TYPE", "BYTES", "PATH");
            for (StagedFile s : unpacker.files()) {
                ArtifactType type = sniffer.sniff(s.path(), s.file());
                out.printf("%-28s %12d  %s%n", type.name(), s.size(), s.path());
            }
            out.printf("%d file(s)%n", unpacker.files().size());
            out.flush();
            return 0;
        } catch (BundleRejectedException e) {
            err.println("crashlab inspect: refused: " + e.getMessage());
            return 2;
        } finally {
            Files.deleteIfExists(staging);
        }
    }
}
