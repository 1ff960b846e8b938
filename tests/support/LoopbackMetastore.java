import java.net.InetSocketAddress;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.IHMSHandler;
import org.apache.hadoop.hive.metastore.RetryingHMSHandler;
import org.apache.hadoop.hive.metastore.TSetIpAddressProcessor;
import org.apache.hadoop.hive.metastore.txn.TxnDbUtil;
import org.apache.hadoop.hive.ql.txn.AcidHouseKeeperService;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransportFactory;

/**
 * A real Hive Metastore (Hive 2.3.10, the one pyspark ships) for the tests, listening on 127.0.0.1 only.
 *
 * <p>usage: java -cp CONF_DIR:PYSPARK_JARS/* LoopbackMetastore.java PORT
 *
 * <p>CONF_DIR holds the hive-site.xml the tests write (embedded Derby, the warehouse). Hive's own server
 * binds every interface and has no setting against it, so this one builds the server the way Paimon's and
 * Iceberg's test metastores do, on a socket bound to loopback. The transaction tables the lock API needs are
 * created first (schema auto-creation makes only the metadata tables). Prints LISTENING when it accepts
 * connections; runs until killed. With hive.compactor.initiator.on it runs the lock housekeeper, as Hive's does.
 */
public class LoopbackMetastore {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    HiveConf conf = new HiveConf();
    TxnDbUtil.prepDb(conf);
    IHMSHandler handler = RetryingHMSHandler.getProxy(conf, new HiveMetaStore.HMSHandler("loopback", conf), false);
    // As Hive's own server does (HiveMetaStore.startMetaStoreThreads): with the compactor initiator on, and
    // hive.txn.manager=DbTxnManager (or the housekeeper does not start), it times out locks whose holder
    // stopped heartbeating (hive.txn.timeout), a killed writer's too.
    if (conf.getBoolVar(HiveConf.ConfVars.HIVE_COMPACTOR_INITIATOR_ON)) {
      new AcidHouseKeeperService().start(conf);
    }
    TServerSocket socket = new TServerSocket(new InetSocketAddress("127.0.0.1", port));
    TThreadPoolServer server = new TThreadPoolServer(new TThreadPoolServer.Args(socket)
        .processor(new TSetIpAddressProcessor<>(handler))
        .transportFactory(new TTransportFactory())
        .protocolFactory(new TBinaryProtocol.Factory())
        .minWorkerThreads(2)
        .maxWorkerThreads(16));
    System.out.println("LISTENING " + port);
    System.out.flush();
    server.serve();
  }
}
