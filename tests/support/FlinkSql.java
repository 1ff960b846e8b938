import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Apache Flink with Apache Paimon's Flink connector, driven by a test over stdin and stdout: the
 * oracle that reads and writes our tables as Flink users do. Run by Java's source launcher on the
 * classpath sbt resolves (`flinkOracle/writeClasspath`), one JVM per test module, every server it
 * starts bound to 127.0.0.1.
 *
 * A request is a line `RUN <mode> <limit> <timeout-ms>`, the SQL statements (each ending with `;` at
 * the end of a line), and a line `END`. Modes: `batch` (statements one after another, INSERT and
 * CALL waiting for their job), `stream-write` (each statement in a streaming job with checkpoints,
 * waited for: Paimon commits on checkpoints and at the end of bounded input), `stream-read` (the last
 * statement a streaming query, read until `limit` rows or the timeout). Every query's rows come back
 * as lines `ROW <kind> <json array>`, then a line `OK`, or `ERROR <message>` on failure. Values are
 * JSON: numbers, strings; decimals as plain strings, timestamps as `yyyy-MM-dd HH:mm:ss.SSSSSS` (UTC
 * for TIMESTAMP_LTZ), TIME as `HH:mm:ss.SSS`, bytes as hex strings, maps as arrays of [key, value].
 */
public class FlinkSql {
    private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");
    private static final DateTimeFormatter MILLIS_OF_DAY = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    public static void main(String[] args) throws Exception {
        String warehouse = args[0];
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        // Flink's own logging goes to stderr (slf4j-simple); stdout carries the protocol only.
        System.setOut(new PrintStream(System.err, true, StandardCharsets.UTF_8));
        // One cluster for every job of the module, started here: a job per statement on a cluster of its own
        // would start (and stop, racing the next job) a cluster each time.
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(loopback())
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(4).build());
        cluster.start();
        restPort = cluster.getRestAddress().get().getPort();
        TableEnvironment batch = environment(warehouse, "batch", false, true);
        // Paimon's procedures build and run jobs of their own in this JVM: on a cluster of their own.
        TableEnvironment procedures = environment(warehouse, "batch", false, false);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println("READY");
        String header;
        while ((header = in.readLine()) != null) {
            String[] parts = header.split(" ");
            List<String> statements = statements(in);
            try {
                switch (parts[1]) {
                    case "batch":
                        for (String s : statements) run(s.trim().toUpperCase().startsWith("CALL") ? procedures : batch, s, out);
                        break;
                    case "stream-write": {
                        TableEnvironment env = environment(warehouse, "streaming", true, true);
                        for (String s : statements) env.executeSql(s).await();
                        break;
                    }
                    case "stream-read": streamRead(warehouse, statements, Integer.parseInt(parts[2]),
                            Long.parseLong(parts[3]), out); break;
                    default: throw new IllegalArgumentException("unknown mode " + parts[1]);
                }
                out.println("OK");
            } catch (Throwable e) {
                Throwable root = e;
                while (root.getCause() != null) root = root.getCause();
                out.println("ERROR " + (e + " | " + root).replace('\n', ' '));
            }
        }
    }

    private static List<String> statements(BufferedReader in) throws Exception {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        String line;
        while (!(line = in.readLine()).equals("END")) {
            current.append(line).append('\n');
            if (line.trim().endsWith(";")) {
                String s = current.toString().trim();
                statements.add(s.substring(0, s.length() - 1));
                current.setLength(0);
            }
        }
        if (current.toString().trim().length() > 0) statements.add(current.toString().trim());
        return statements;
    }

    /** Every address Flink's servers take, on loopback. */
    private static Configuration loopback() {
        Configuration conf = new Configuration();
        for (String key : new String[] {"rest.bind-address", "rest.address", "jobmanager.bind-host",
                "taskmanager.bind-host", "taskmanager.host", "jobmanager.rpc.address"}) {
            conf.setString(key, "127.0.0.1");
        }
        conf.setString("rest.port", "0");
        // Batch jobs keep their blocking results' buffers until they end: room for several at a time.
        conf.setString("taskmanager.memory.network.min", "256 mb");
        conf.setString("taskmanager.memory.network.max", "256 mb");
        return conf;
    }

    private static int restPort;

    /** An environment over the catalog; its jobs go to the module's cluster when `shared`, else to one of their own. */
    private static TableEnvironment environment(String warehouse, String mode, boolean checkpoints, boolean shared) {
        Configuration conf = loopback();
        if (shared) {
            conf.setString("execution.target", "remote");
            conf.setString("rest.port", Integer.toString(restPort));
        }
        conf.setString("parallelism.default", "1");
        conf.setString("table.exec.resource.default-parallelism", "1");
        conf.setString("table.dml-sync", "true");
        conf.setString("table.local-time-zone", "UTC");
        conf.setString("execution.runtime-mode", mode);
        if (checkpoints) conf.setString("execution.checkpointing.interval", "1 s");
        EnvironmentSettings settings = EnvironmentSettings.newInstance().withConfiguration(conf).build();
        TableEnvironment env = TableEnvironment.create(settings);
        // No caching: the other engine changes the tables between statements.
        env.executeSql("CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '" + warehouse
                + "', 'cache-enabled' = 'false')");
        env.executeSql("USE CATALOG paimon");
        return env;
    }

    private static void run(TableEnvironment env, String statement, PrintStream out) throws Exception {
        TableResult result = env.executeSql(statement);
        String first = statement.trim().split("\\s+")[0].toUpperCase();
        boolean query = first.equals("SELECT") || first.equals("WITH") || first.equals("SHOW") || first.equals("DESCRIBE");
        if (query) {
            try (CloseableIterator<Row> rows = result.collect()) {
                while (rows.hasNext()) print(rows.next(), out);
            }
        } else {
            result.await();
        }
    }

    /** Rows of a streaming query until `limit` of them or the timeout; the job is then cancelled. */
    private static void streamRead(String warehouse, List<String> statements, int limit, long timeoutMs, PrintStream out)
            throws Exception {
        TableEnvironment env = environment(warehouse, "streaming", false, true);
        for (String s : statements.subList(0, statements.size() - 1)) env.executeSql(s).await();
        TableResult result = env.executeSql(statements.get(statements.size() - 1));
        CloseableIterator<Row> rows = result.collect();
        ExecutorService reader = Executors.newSingleThreadExecutor();
        List<Row> seen = new ArrayList<>();
        Future<?> reading = reader.submit(() -> {
            while (seen.size() < limit && rows.hasNext()) {
                Row row = rows.next();
                synchronized (seen) { seen.add(row); }
            }
        });
        try {
            reading.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            reading.cancel(true);
        } finally {
            result.getJobClient().ifPresent(job -> job.cancel());
            rows.close();
            reader.shutdownNow();
        }
        synchronized (seen) { for (Row row : seen) print(row, out); }
    }

    private static void print(Row row, PrintStream out) {
        StringBuilder json = new StringBuilder();
        fields(row, json);
        out.println("ROW " + row.getKind().shortString() + " " + json);
    }

    private static void fields(Row row, StringBuilder json) {
        json.append('[');
        for (int i = 0; i < row.getArity(); i++) {
            if (i > 0) json.append(',');
            value(row.getField(i), json);
        }
        json.append(']');
    }

    private static void value(Object v, StringBuilder json) {
        if (v == null) json.append("null");
        else if (v instanceof Boolean || v instanceof Byte || v instanceof Short || v instanceof Integer
                || v instanceof Long) json.append(v);
        else if (v instanceof Float || v instanceof Double) {
            double d = ((Number) v).doubleValue();
            if (Double.isFinite(d)) json.append(v); else string(v.toString(), json);
        }
        else if (v instanceof BigDecimal) string(((BigDecimal) v).toPlainString(), json);
        else if (v instanceof LocalDateTime) string(MICROS.format((LocalDateTime) v), json);
        else if (v instanceof Instant) string(MICROS.format(LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC)), json);
        else if (v instanceof LocalDate) string(v.toString(), json);
        else if (v instanceof LocalTime) string(MILLIS_OF_DAY.format((LocalTime) v), json);
        else if (v instanceof byte[]) {
            StringBuilder hex = new StringBuilder();
            for (byte b : (byte[]) v) hex.append(String.format("%02x", b));
            string(hex.toString(), json);
        }
        else if (v instanceof Row) fields((Row) v, json);
        else if (v instanceof Map) {
            // Entries sorted by their text, so that a map reads the same whatever its order.
            List<String> entries = new ArrayList<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                StringBuilder entry = new StringBuilder("[");
                value(e.getKey(), entry);
                entry.append(',');
                value(e.getValue(), entry);
                entries.add(entry.append(']').toString());
            }
            java.util.Collections.sort(entries);
            json.append('[').append(String.join(",", entries)).append(']');
        }
        else if (v instanceof Object[]) {
            json.append('[');
            Object[] items = (Object[]) v;
            for (int i = 0; i < items.length; i++) {
                if (i > 0) json.append(',');
                value(items[i], json);
            }
            json.append(']');
        }
        else if (v.getClass().isArray()) {
            json.append('[');
            int n = java.lang.reflect.Array.getLength(v);
            for (int i = 0; i < n; i++) {
                if (i > 0) json.append(',');
                value(java.lang.reflect.Array.get(v, i), json);
            }
            json.append(']');
        }
        else string(v.toString(), json);
    }

    private static void string(String s, StringBuilder json) {
        json.append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') json.append('\\').append(c);
            else if (c < 0x20) json.append(String.format("\\u%04x", (int) c));
            else json.append(c);
        }
        json.append('"');
    }
}
