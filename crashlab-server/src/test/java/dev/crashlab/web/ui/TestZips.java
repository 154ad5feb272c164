package dev.crashlab.web.ui;

import dev.crashlab.testing.Zips;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Small crash bundles written on the fly for the browser tests. */
final class TestZips {

    static final String TRACEBACK = """
            [2026-11-21 23:58:02] INFO  starting epoch 3/40 (resnet50, batch 64, amp=False)
            Traceback (most recent call last):
              File "/home/ml/train.py", line 142, in <module>
                main()
              File "/home/ml/train.py", line 131, in main
                loss = model(images).loss
              File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _call_impl
                return forward_call(*args, **kwargs)
            torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 784.00 MiB. GPU 0 has a total capacity of 5.80 GiB of which 312.44 MiB is free.
            """;

    static final String NVIDIA_SMI = """
            +-----------------------------------------------------------------------------------------+
            | NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |
            |-----------------------------------------+------------------------+----------------------+
            |   0  NVIDIA GeForce RTX 2060        Off |   00000000:01:00.0  On |                  N/A |
            | 45%   62C    P2             120W /  160W |    5801MiB /   6144MiB |     98%      Default |
            +-----------------------------------------+------------------------+----------------------+
            """;

    static final String PIP_FREEZE = """
            numpy==1.26.4
            torch==2.5.1+cu121
            torchvision==0.20.1+cu121
            """;

    private TestZips() {}

    /** crash.log, nvidia-smi.txt and env/pip-freeze.txt. */
    static Path crashBundle(Path dir) throws IOException {
        return Files.write(dir.resolve("crash-bundle.zip"), Zips.zip()
                .text("crash.log", TRACEBACK)
                .text("nvidia-smi.txt", NVIDIA_SMI)
                .text("env/pip-freeze.txt", PIP_FREEZE)
                .build());
    }

    /** A zip with an entry that climbs out of the bundle; the server must refuse all of it. */
    static Path evilBundle(Path dir) throws IOException {
        return Files.write(dir.resolve("evil.zip"), Zips.zip()
                .text("crash.log", TRACEBACK)
                .text("../evil.txt", "this must never be stored\n")
                .build());
    }
}
