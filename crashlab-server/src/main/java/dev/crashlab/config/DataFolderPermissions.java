package dev.crashlab.config;

import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Makes the data folder private at start: the folder and what is in it at that moment 0700 (folders) or 0600
 * (files), the embedded database's files 0600. What is made later (scratch folders, blobs) gets the process's umask,
 * below a folder no one else may enter.
 * It holds password hashes, the audit trail, crash logs and their facts; other accounts on the machine have no
 * business there. A folder that is 0700 keeps everything below it out of reach, so the blobs (millions of files)
 * need no walk. Where the file system has no POSIX permissions (Windows) nothing changes.
 */
@ApplicationScoped
public class DataFolderPermissions {

    private static final Logger LOG = Logger.getLogger(DataFolderPermissions.class);
    static final Set<PosixFilePermission> FOLDER = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    @Inject
    CrashLabConfig config;

    void onStart(@Observes @Priority(1) StartupEvent e) {
        try {
            restrict(config.dataDir());
        } catch (IOException | UnsupportedOperationException ex) {
            LOG.warnf("could not make the data folder %s private (%s); check its permissions yourself", config.dataDir(), ex);
        }
    }

    /** Sets {@code dataDir} and its folders to 0700 and the files of its {@code db} folder to 0600. */
    static void restrict(Path dataDir) throws IOException {
        Files.createDirectories(dataDir);
        Files.setPosixFilePermissions(dataDir, FOLDER);
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dataDir)) {
            for (Path child : children) {
                if (Files.isSymbolicLink(child)) {
                    continue;
                }
                Files.setPosixFilePermissions(child, Files.isDirectory(child) ? FOLDER : FILE);
            }
        }
        Path db = dataDir.resolve("db");
        if (Files.isDirectory(db) && !Files.isSymbolicLink(db)) {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(db)) {
                for (Path f : files) {
                    if (Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        Files.setPosixFilePermissions(f, FILE);
                    }
                }
            }
        }
    }
}
