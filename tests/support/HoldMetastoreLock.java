import java.util.Collections;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;

/**
 * A writer that dies holding a metastore table lock: takes the EXCLUSIVE table lock exactly as Paimon's
 * HiveCatalogLock requests it, prints HELD, and waits to be killed.
 *
 * <p>usage: java -cp PYSPARK_JARS/* HoldMetastoreLock.java THRIFT_URI DATABASE TABLE
 */
public class HoldMetastoreLock {
  public static void main(String[] args) throws Exception {
    HiveConf conf = new HiveConf();
    conf.setVar(HiveConf.ConfVars.METASTOREURIS, args[0]);
    HiveMetaStoreClient client = new HiveMetaStoreClient(conf);
    LockComponent component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, args[1]);
    component.setTablename(args[2]);
    component.unsetOperationType();
    LockResponse response = client.lock(new LockRequest(Collections.singletonList(component), "holder", "localhost"));
    if (response.getState() != LockState.ACQUIRED) {
      throw new IllegalStateException("lock not acquired: " + response.getState());
    }
    System.out.println("HELD " + response.getLockid());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
