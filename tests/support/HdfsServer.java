import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * A real single-node HDFS for the tests: Hadoop 3.5.0's own name node and data node
 * (hadoop-client-minicluster, the jars `hdfsOracle/writeClasspath` resolves, beside pyspark's), every
 * address on 127.0.0.1. Prints "READY hdfs://127.0.0.1:PORT" once it serves, and stops when its standard
 * input closes.
 *
 * usage: java -cp ... HdfsServer.java DIR
 */
public final class HdfsServer {
  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, Files.createDirectories(Path.of(args[0])).toString());
    for (String key : new String[] {"dfs.namenode.http-address", "dfs.namenode.https-address", "dfs.datanode.address",
        "dfs.datanode.http.address", "dfs.datanode.https.address", "dfs.datanode.ipc.address"}) {
      conf.set(key, "127.0.0.1:0");
    }
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    cluster.waitActive();
    System.out.println("READY hdfs://127.0.0.1:" + cluster.getNameNodePort() + " http://127.0.0.1:"
        + cluster.getNameNode().getHttpAddress().getPort());
    System.out.flush();
    while (System.in.read() != -1) {
      // until the tests close our standard input
    }
    cluster.shutdown();
  }
}
