import java.net.InetSocketAddress;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.IHMSHandler;
import org.apache.hadoop.hive.metastore.RetryingHMSHandler;
import org.apache.hadoop.hive.metastore.TSetIpAddressProcessor;
import org.apache.hadoop.hive.metastore.txn.TxnDbUtil;
import org.apache.hadoop.hive.ql.txn.AcidHouseKeeperService;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.ProcessFunction;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolUtil;
import org.apache.thrift.protocol.TType;
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
 * connections, after HIVE4 PORT: a second port on which the same metastore answers get_table as Hive 4
 * servers do. Runs until killed. With hive.compactor.initiator.on it runs the lock housekeeper, as Hive's does.
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
    // A second port answers as Hive 4.0.1+ servers do, which removed the get_table call the Hive 2.3 client makes.
    TServerSocket hive4Socket = new TServerSocket(new InetSocketAddress("127.0.0.1", 0));
    TProcessor hive4 = new WithoutGetTable(new ThriftHiveMetastore.Processor<>(handler), handler);
    Thread hive4Server = new Thread(() -> new TThreadPoolServer(new TThreadPoolServer.Args(hive4Socket)
        .processor(hive4).protocolFactory(new TBinaryProtocol.Factory()).minWorkerThreads(1).maxWorkerThreads(4))
        .serve());
    hive4Server.setDaemon(true);
    hive4Server.start();
    System.out.println("HIVE4 " + hive4Socket.getServerSocket().getLocalPort());
    System.out.println("LISTENING " + port);
    System.out.flush();
    server.serve();
  }

  /** Answers get_table as a server without it does (TBaseProcessor's unknown-method answer), the rest as usual. */
  static final class WithoutGetTable implements TProcessor {
    private final ThriftHiveMetastore.Processor<IHMSHandler> processor;
    private final IHMSHandler handler;

    WithoutGetTable(ThriftHiveMetastore.Processor<IHMSHandler> processor, IHMSHandler handler) {
      this.processor = processor;
      this.handler = handler;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void process(TProtocol in, TProtocol out) throws TException {
      TMessage message = in.readMessageBegin();
      ProcessFunction function = processor.getProcessMapView().get(message.name);
      if (function == null || message.name.equals("get_table")) {
        TProtocolUtil.skip(in, TType.STRUCT);
        in.readMessageEnd();
        TApplicationException unknown = new TApplicationException(TApplicationException.UNKNOWN_METHOD,
            "Invalid method name: '" + message.name + "'");
        out.writeMessageBegin(new TMessage(message.name, TMessageType.EXCEPTION, message.seqid));
        unknown.write(out);
        out.writeMessageEnd();
        out.getTransport().flush();
        return;
      }
      function.process(message.seqid, in, out, handler);
    }
  }
}
