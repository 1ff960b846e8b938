import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.catalog.TableMetadata;
import org.apache.paimon.rest.RESTApi;
import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.RESTToken;
import org.apache.paimon.rest.RESTUtil;
import org.apache.paimon.rest.auth.BearTokenAuthProvider;
import org.apache.paimon.rest.requests.CreateBranchRequest;
import org.apache.paimon.rest.requests.RenameTableRequest;
import org.apache.paimon.rest.responses.ConfigResponse;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.TableSnapshot;

/**
 * Apache Paimon's own REST catalog server (RESTCatalogServer, from paimon-core 1.4.2's test jar) for the
 * tests, on 127.0.0.1 at a free port.
 *
 * <p>usage: java -cp REST_ORACLE_CLASSPATH LoopbackRestCatalog.java DATA_PATH WAREHOUSE TOKEN [KEY=VALUE ...]
 *
 * <p>The server keeps databases, tables and their latest snapshots in memory and the files under DATA_PATH;
 * WAREHOUSE is the catalog's name clients ask for, TOKEN the bearer token it takes, KEY=VALUE defaults its
 * /v1/config answer adds (data-token.enabled, ...). Paimon's MockWebServer binds "localhost" and handles
 * requests on several threads over plain HashMaps: this one binds loopback and handles one request at a
 * time. Its rename moves the directory but keeps the old path and latest snapshot under the old name, so a
 * renamed table reads empty even to Paimon's Java client; after each rename this one records the table
 * again under its new name (new path, same uuid and schema) with its snapshot and partitions. Its branch
 * creation records main's latest snapshot as the new branch's, so an empty branch reads main's rows and one
 * from a tag the latest rather than the tag's; after each this one records the branch's own latest snapshot,
 * from its files. Prints
 * READY URL when it listens, two lines per request after (METHOD PATH STATUS, then HEADERS and the names of
 * the headers it came with). Lines on stdin change it: DENY db.table makes it refuse that table from then on
 * (403, as a server that grants access per table does; it answers DENIED db.table); TOKEN db.table MILLIS
 * KEY=VALUE... makes the storage credentials it hands out for the table (with data-token.enabled) those
 * settings, expiring at MILLIS (it answers TOKEN db.table). It stops when stdin closes. With
 * data-token.enabled=true and a DATA_PATH of file:/..., Paimon's server names its tables' paths with the
 * scheme of its test FileIO, rest-test-file-io:/....
 */
public class LoopbackRestCatalog {
  public static void main(String[] args) throws Exception {
    String dataPath = args[0];
    String warehouse = args[1];
    Map<String, String> defaults = new HashMap<>();
    defaults.put("prefix", "paimon");
    defaults.put("warehouse", warehouse);
    defaults.put("data-token.enabled", "false");
    for (int i = 3; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      defaults.put(kv[0], kv[1]);
    }
    RESTCatalogServer catalog = new RESTCatalogServer(dataPath, new BearTokenAuthProvider(args[2]),
        new ConfigResponse(defaults, new HashMap<>()), warehouse);
    MockWebServer web = (MockWebServer) field(catalog, "server");
    Dispatcher paimons = web.getDispatcher();
    web.setDispatcher(new Dispatcher() {
      @Override
      public synchronized MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        String body = request.getBody().clone().readUtf8();
        MockResponse response = paimons.dispatch(request);
        int status = Integer.parseInt(response.getStatus().split(" ")[1]);
        if (status == 200 && "POST".equals(request.getMethod()) && request.getPath().endsWith("/tables/rename")) {
          try {
            recordRenamed(catalog, RESTApi.fromJson(body, RenameTableRequest.class));
          } catch (Exception e) {
            throw new IllegalStateException("recording a renamed table", e);
          }
        }
        if (status == 200 && "POST".equals(request.getMethod()) && request.getPath().endsWith("/branches")) {
          try {
            recordBranch(catalog, request.getPath(), RESTApi.fromJson(body, CreateBranchRequest.class).branch());
          } catch (Exception e) {
            throw new IllegalStateException("recording a new branch", e);
          }
        }
        System.out.println(request.getMethod() + " " + request.getPath() + " " + status);
        // The names of the headers a client sent, never their values (a token is among them).
        System.out.println("HEADERS " + String.join(",", new java.util.TreeSet<>(request.getHeaders().names())));
        return response;
      }
    });
    web.start(InetAddress.getByName("127.0.0.1"), 0);
    System.out.println("READY " + web.url("/").toString().replaceAll("/$", ""));
    System.out.flush();
    java.io.BufferedReader commands = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
    for (String line = commands.readLine(); line != null; line = commands.readLine()) {
      String[] words = line.trim().split(" ");
      synchronized (web.getDispatcher()) {
        if (words[0].equals("DENY")) {
          catalog.addNoPermissionTable(Identifier.fromString(words[1]));
          System.out.println("DENIED " + words[1]);
        } else if (words[0].equals("TOKEN")) {
          Map<String, String> settings = new HashMap<>();
          for (int i = 3; i < words.length; i++) {
            String[] kv = words[i].split("=", 2);
            settings.put(kv[0], kv[1]);
          }
          catalog.setDataToken(Identifier.fromString(words[1]), new RESTToken(settings, Long.parseLong(words[2])));
          System.out.println("TOKEN " + words[1]);
        }
      }
      System.out.flush();
    }
    web.shutdown();
  }

  /** The renamed table's record rebuilt for its new name, and its latest snapshot and partitions moved to it. */
  @SuppressWarnings("unchecked")
  private static void recordRenamed(RESTCatalogServer catalog, RenameTableRequest rename) throws Exception {
    Identifier from = rename.getSource();
    Identifier to = rename.getDestination();
    Map<String, TableMetadata> tables = (Map<String, TableMetadata>) field(catalog, "tableMetadataStore");
    TableMetadata moved = tables.get(to.getFullName());
    Method create = RESTCatalogServer.class.getDeclaredMethod("createTableMetadata", Identifier.class, long.class,
        Schema.class, String.class, boolean.class);
    create.setAccessible(true);
    Map<String, String> options = new HashMap<>(moved.schema().options());
    if (!moved.isExternal()) {
      options.remove("path");
    }
    Schema schema = moved.schema().copy(options).toSchema();
    tables.put(to.getFullName(), (TableMetadata) create.invoke(catalog, to, moved.schema().id(), schema, moved.uuid(),
        moved.isExternal()));
    for (String store : List.of("tableLatestSnapshotStore", "tablePartitionsStore")) {
      Map<String, Object> byName = (Map<String, Object>) field(catalog, store);
      Object value = byName.remove(from.getFullName());
      if (value != null) {
        byName.put(to.getFullName(), value);
      }
    }
  }

  /** The new branch's latest snapshot as its own files have it: none for an empty branch, the tag's for one from a tag. */
  @SuppressWarnings("unchecked")
  private static void recordBranch(RESTCatalogServer catalog, String path, String branch) throws Exception {
    String[] parts = path.split("\\?")[0].split("/");
    String db = RESTUtil.decodeString(parts[parts.length - 4]);
    String table = RESTUtil.decodeString(parts[parts.length - 2]);
    Identifier identifier = new Identifier(db, table, branch);
    Catalog files = (Catalog) field(catalog, "catalog");
    Snapshot latest = ((FileStoreTable) files.getTable(identifier)).snapshotManager().latestSnapshot();
    Map<String, TableSnapshot> snapshots = (Map<String, TableSnapshot>) field(catalog, "tableLatestSnapshotStore");
    if (latest == null) {
      snapshots.remove(identifier.getFullName());
    } else {
      snapshots.put(identifier.getFullName(), new TableSnapshot(latest, latest.totalRecordCount(), 0, 0, 0));
    }
  }

  private static Object field(Object owner, String name) throws Exception {
    Field field = owner.getClass().getDeclaredField(name);
    field.setAccessible(true);
    return field.get(owner);
  }
}
