package dev.crashlab.repro.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crashlab.repro.JobResult;
import dev.crashlab.repro.ReplayResult;
import dev.crashlab.repro.ReproJson;
import dev.crashlab.repro.ReproSpec;
import dev.crashlab.repro.ReproSpecJson;
import dev.crashlab.repro.jobs.JobViews.JobView;
import dev.crashlab.repro.jobs.JobViews.SweepReport;
import dev.crashlab.repro.jobs.JobViews.WorkerView;
import dev.crashlab.repro.worker.JobState;
import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.ClaimedJob;
import dev.crashlab.repro.worker.WorkerMessages.Completion;
import dev.crashlab.repro.worker.WorkerMessages.Device;
import dev.crashlab.repro.worker.WorkerMessages.Heartbeat;
import dev.crashlab.repro.worker.WorkerMessages.HeartbeatReply;
import dev.crashlab.domain.DomainException;
import dev.crashlab.testing.RivalTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The job queue on the real database: claim, heartbeat, complete, lease expiry with bounded attempts,
 * cancel, targets, and concurrent claims.
 *
 * <p>NOTE: times are an hour ahead of the clock, so the server's own lease sweep (real time) never
 * touches these jobs; each test targets its jobs at its own worker names, so jobs of other tests stay out.
 */
@QuarkusTest
@Tag("persistence")
class ReproJobLifecycleTest {

    @Inject
    ReproJobService jobs;

    @Inject
    DataSource data;

    final Instant t0 = Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);
    final String run = UUID.randomUUID().toString().substring(0, 8);

    private String name(String worker) {
        return worker + "-" + run;
    }

    // A spec whose one layer is named after this run, so that a test knows its own jobs' specs.
    private ReproSpec spec() {
        return ReproSpecJson.read("{\"format\":1,\"batch\":1,\"layers\":[{\"name\":\"" + run
                + "\",\"in_channels\":1,\"out_channels\":1,\"input\":[4,4],\"kernel\":[3,3]}]}").spec();
    }

    private JobView queue(String target) throws Exception {
        return jobs.create(null, spec(), JobTarget.parse(target), 6L << 30, t0);
    }

    private ClaimRequest worker(String name, Device... devices) {
        return new ClaimRequest(name, "cpu", List.of(devices), "test");
    }

    private Optional<ClaimedJob> claimOwn(String worker, Instant at, Device... devices) {
        clearQueuedJobsForAnyone();
        return jobs.claim(worker(worker, devices), at);
    }

    // Jobs left queued for `any` worker (by an interrupted run) would be claimed first; they are ended here.
    private void clearQueuedJobsForAnyone() {
        io.quarkus.narayana.jta.QuarkusTransaction.requiringNew().run(() -> ReproJob.update(
                "state = ?1, reason = 'cleared by a test' where state = ?2 and target = 'any'", JobState.CANCELLED, JobState.QUEUED));
    }

    @Test
    void aJobGoesFromQueuedThroughRunningToPassed() throws Exception {
        String w = name("w1");
        JobView job = queue("worker:" + w);
        assertThat(job.state()).isEqualTo(JobState.QUEUED);
        assertThat(job.attempts()).isZero();
        assertThat(job.spec()).isEqualTo(spec());
        assertThat(job.spec().layers().getFirst().name()).isEqualTo(run);

        ClaimedJob claimed = claimOwn(w, t0).orElseThrow();
        assertThat(claimed.id()).isEqualTo(job.id());
        assertThat(claimed.attempt()).isEqualTo(1);
        assertThat(claimed.memoryCapBytes()).isEqualTo(6L << 30);
        assertThat(claimed.spec()).isEqualTo(spec());
        JobView held = jobs.find(job.id()).orElseThrow();
        assertThat(held.state()).isEqualTo(JobState.CLAIMED);
        assertThat(held.worker()).isEqualTo(w);
        assertThat(held.leaseExpiresAt()).isAfter(t0);
        assertThat(claimOwn(w, t0)).as("nothing else is queued for %s", w).isEmpty();

        HeartbeatReply beat = jobs.heartbeat(job.id(), new Heartbeat(w, "layer 1/3 forward"), t0.plusSeconds(1));
        assertThat(beat.cancel()).isFalse();
        assertThat(beat.leaseExpiresAt()).isAfter(held.leaseExpiresAt());
        JobView running = jobs.find(job.id()).orElseThrow();
        assertThat(running.state()).isEqualTo(JobState.RUNNING);
        assertThat(running.progress()).isEqualTo("layer 1/3 forward");
        assertThat(running.startedAt()).isEqualTo(t0.plusSeconds(1));

        JobResult result = ReproJson.readJobResult("{\"replay\":{\"status\":\"passed\"},\"child\":{\"exit_code\":0}}");
        assertThat(result.replay().status()).isEqualTo(ReplayResult.Status.PASSED);
        JobView done = jobs.complete(job.id(), new Completion(w, JobState.PASSED, "every layer matched", result), t0.plusSeconds(2));
        assertThat(done.state()).isEqualTo(JobState.PASSED);
        assertThat(done.reason()).isEqualTo("every layer matched");
        assertThat(done.result()).isEqualTo(result);
        assertThat(done.finishedAt()).isEqualTo(t0.plusSeconds(2));
        assertThat(done.leaseExpiresAt()).isNull();

        // a finished job takes no second result and cannot be cancelled
        assertThatThrownBy(() -> jobs.complete(job.id(), new Completion(w, JobState.FAILED, "again", null), t0.plusSeconds(3)))
                .isInstanceOf(DomainException.class).hasMessageContaining("no longer holds it");
        assertThatThrownBy(() -> jobs.cancel(job.id(), t0.plusSeconds(3)))
                .isInstanceOf(DomainException.class).hasMessageContaining("already ended as passed");
        assertThat(jobs.workers(t0).stream().filter(v -> v.name().equals(w)).findFirst().orElseThrow().currentJob()).isNull();
    }

    @Test
    void anExpiredLeaseRequeuesTheJobUntilItsAttemptsAreUsed() throws Exception {
        JobView job = queue("gpu:lease-gpu-" + run);
        Device gpu = new Device("NVIDIA lease-gpu-" + run, 8L << 30, null);
        Duration lease = Duration.ofSeconds(10); // %test.crashlab.lab.lease

        Instant at = t0;
        for (int attempt = 1; attempt <= job.maxAttempts(); attempt++) {
            String w = name("lost" + attempt);
            ClaimedJob c = claimOwn(w, at, gpu).orElseThrow();
            assertThat(c.id()).isEqualTo(job.id());
            assertThat(c.attempt()).isEqualTo(attempt);
            jobs.heartbeat(job.id(), new Heartbeat(w, "working"), at.plusSeconds(1));

            // not yet expired: the sweep leaves it alone
            Instant lastBeat = at.plusSeconds(1);
            jobs.sweep(lastBeat.plus(lease).minusMillis(1)); // other tests' jobs may expire here; not this one
            assertThat(jobs.find(job.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);

            at = lastBeat.plus(lease).plusSeconds(1);
            SweepReport r = jobs.sweep(at);
            JobView after = jobs.find(job.id()).orElseThrow();
            assertThat(after.reason()).contains("worker " + w + " stopped heart-beating during attempt " + attempt);
            if (attempt < job.maxAttempts()) {
                assertThat(r.requeued()).isGreaterThanOrEqualTo(1);
                assertThat(after.state()).isEqualTo(JobState.QUEUED);
                assertThat(after.worker()).isNull();
                // the silent worker comes back: its heartbeat says stop, its result is refused
                HeartbeatReply late = jobs.heartbeat(job.id(), new Heartbeat(w, "still here"), at);
                assertThat(late.cancel()).isTrue();
                assertThat(late.reason()).contains("no longer held by " + w);
                Instant late2 = at;
                assertThatThrownBy(() -> jobs.complete(job.id(), new Completion(w, JobState.PASSED, "late", null), late2))
                        .isInstanceOf(DomainException.class);
            } else {
                assertThat(r.failed()).isGreaterThanOrEqualTo(1);
                assertThat(after.state()).isEqualTo(JobState.FAILED);
                assertThat(after.reason()).contains("gave up after " + attempt + " attempts");
                assertThat(after.finishedAt()).isEqualTo(at);
            }
        }
    }

    @Test
    void aStoredSpecThatNoLongerReadsFailsItsJobInsteadOfReachingAWorker() throws Exception {
        String w = name("w-old-spec");
        JobView job = queue("worker:" + w);
        // as if stored by a version that accepted a field this one does not know
        io.quarkus.narayana.jta.QuarkusTransaction.requiringNew().run(() -> ReproJob.update(
                "specJson = ?1 where id = ?2", "{\"format\":1,\"batch\":1,\"layers\":[],\"future_field\":true}", job.id()));
        assertThat(claimOwn(w, t0)).isEmpty();
        JobView failed = jobs.find(job.id()).orElseThrow();
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.reason()).startsWith("its stored spec no longer reads: ");
        assertThat(failed.spec()).isNull();
        assertThat(failed.attempts()).isZero();
    }

    @Test
    void cancellingAQueuedJobEndsItAtOnce() throws Exception {
        JobView job = queue("worker:" + name("nobody"));
        JobView cancelled = jobs.cancel(job.id(), t0);
        assertThat(cancelled.state()).isEqualTo(JobState.CANCELLED);
        assertThat(cancelled.finishedAt()).isEqualTo(t0);
        assertThat(claimOwn(name("nobody"), t0)).isEmpty();
        assertThatThrownBy(() -> jobs.cancel(job.id(), t0)).isInstanceOf(DomainException.class);
        assertThatThrownBy(() -> jobs.cancel(Long.MAX_VALUE, t0)).hasMessageContaining("no reproduction job");
    }

    @Test
    void cancellingARunningJobStopsItAtTheNextHeartbeat() throws Exception {
        String w = name("busy");
        JobView job = queue("worker:" + w);
        claimOwn(w, t0).orElseThrow();
        jobs.heartbeat(job.id(), new Heartbeat(w, null), t0);

        JobView requested = jobs.cancel(job.id(), t0.plusSeconds(1));
        assertThat(requested.state()).isEqualTo(JobState.RUNNING);
        assertThat(requested.cancelRequested()).isTrue();
        HeartbeatReply stop = jobs.heartbeat(job.id(), new Heartbeat(w, null), t0.plusSeconds(2));
        assertThat(stop.cancel()).isTrue();
        assertThat(stop.reason()).contains("cancelled");
        JobView done = jobs.complete(job.id(), new Completion(w, JobState.CANCELLED, "killed on request", null), t0.plusSeconds(3));
        assertThat(done.state()).isEqualTo(JobState.CANCELLED);

        // a cancel waiting for a worker that went silent ends at the sweep, not back in the queue
        String gone = name("gone");
        JobView other = queue("worker:" + gone);
        claimOwn(gone, t0).orElseThrow();
        jobs.cancel(other.id(), t0.plusSeconds(1));
        assertThat(jobs.sweep(t0.plusSeconds(60)).cancelled()).isGreaterThanOrEqualTo(1);
        assertThat(jobs.find(other.id()).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    }

    @Test
    void targetsChooseTheWorker() throws Exception {
        String a = name("a");
        String b = name("b");
        JobView forA = queue("worker:" + a);
        JobView for3060 = queue("gpu:RTX 3060 " + run);
        Device cpu = new Device("16-core CPU", null, null);
        Device broken3060 = new Device("NVIDIA GeForce RTX 3060 " + run, 12L << 30, "no CUDA device: driver too old");
        Device ok3060 = new Device("NVIDIA GeForce RTX 3060 " + run, 12L << 30, null);

        assertThat(claimOwn(b, t0, cpu)).as("b is not a").isEmpty();
        assertThat(claimOwn(b, t0, broken3060)).as("a 3060 the backend cannot use").isEmpty();
        assertThat(claimOwn(b, t0, ok3060).orElseThrow().id()).isEqualTo(for3060.id());
        assertThat(claimOwn(a, t0, cpu).orElseThrow().id()).isEqualTo(forA.id());
        assertThatThrownBy(() -> JobTarget.parse("gpu:")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobTarget.parse("host:x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> jobs.claim(worker("bad name with spaces"), t0)).isInstanceOf(DomainException.class);
    }

    @Test
    void concurrentClaimsGiveAJobToExactlyOneWorker() throws Exception {
        int workers = 8;
        int queued = 3;
        Device gpu = new Device("race-gpu-" + run, null, null);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < queued; i++) {
            ids.add(queue("gpu:race-gpu-" + run).id());
        }
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<Long>>> results = new ArrayList<>();
            for (int i = 0; i < workers; i++) {
                String w = name("racer" + i);
                Callable<List<Long>> claimAll = () -> {
                    go.await();
                    List<Long> got = new ArrayList<>();
                    for (Optional<ClaimedJob> c; (c = jobs.claim(worker(w, gpu), t0)).isPresent(); ) {
                        got.add(c.get().id());
                    }
                    return got;
                };
                results.add(pool.submit(claimAll));
            }
            go.countDown();
            List<Long> claimed = new ArrayList<>();
            for (Future<List<Long>> f : results) {
                claimed.addAll(f.get());
            }
            assertThat(claimed).as("every job claimed once, none twice").containsExactlyInAnyOrderElementsOf(ids);
            for (long id : ids) {
                JobView j = jobs.find(id).orElseThrow();
                assertThat(j.state()).isEqualTo(JobState.CLAIMED);
                assertThat(j.attempts()).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aWorkersFirstClaimsOnTwoServersAtOnceBothRegisterIt() throws Exception {
        String w = name("balanced");
        JobView job = queue("worker:" + w);
        clearQueuedJobsForAnyone();
        Optional<ClaimedJob> claimed;
        try (RivalTransaction rival = RivalTransaction.open(data)) {
            // the same worker's first claim on the other server behind a load balancer (or another server's local worker)
            rival.run("insert into lab_worker (name, backend, devices_json, version, first_seen, last_seen) values (?, ?, ?, ?, ?, ?)",
                    w, "rival", "[]", "rival", t0, t0);
            claimed = rival.race(() -> jobs.claim(worker(w), t0.plusSeconds(1)));
        }
        assertThat(claimed).as("the claim went on with the row the other server made")
                .hasValueSatisfying(c -> assertThat(c.id()).isEqualTo(job.id()));
        WorkerView seen = jobs.workers(t0).stream().filter(v -> v.name().equals(w)).findFirst().orElseThrow();
        assertThat(seen.firstSeen()).as("the other server's row").isEqualTo(t0);
        assertThat(seen.backend()).as("updated by this claim").isEqualTo("cpu");
        assertThat(seen.lastSeen()).isEqualTo(t0.plusSeconds(1));
        assertThat(seen.currentJob()).isEqualTo(job.id());
    }
}
