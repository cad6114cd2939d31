import type { Migration } from 'kysely';
import * as initialSchema from './2026-11-22T1200_initial_schema';
import * as reportRuns from './2026-11-22T1600_report_runs';
import * as webhookDeliveries from './2026-11-22T1700_webhook_deliveries';
import * as pbxLogs from './2026-11-23T1200_pbx_logs';
import * as importLineCounts from './2026-11-23T1300_import_line_counts';
import * as queueEventColumns from './2026-11-24T1000_queue_event_columns';
import * as agentAliases from './2026-11-25T1000_agent_aliases';
import * as directory from './2026-11-25T1200_directory';
import * as selfService from './2026-11-25T1300_self_service';
import * as liveQueues from './2026-11-25T1400_live_queues';
import * as queueServiceLevel from './2026-11-26T1300_queue_service_level';
import * as lostCallDetails from './2026-11-26T1310_lost_call_details';
import * as consoleTables from './2026-11-26T1400_console';
import * as idsNeverReused from './2026-11-27T1000_ids_never_reused';
import * as moreIdsNeverReused from './2026-11-27T1200_more_ids_never_reused';
import * as pbxImports from './2026-11-27T1300_pbx_imports';
import * as cascadeDeletes from './2026-11-27T1400_cascade_deletes';
import * as loginFailureIds from './2026-11-27T1500_login_failure_ids';
import * as liveShared from './2026-11-27T1700_live_shared';
import * as severalInstances from './2026-11-27T1800_several_instances';

/**
 * Every migration, by name, imported statically so that the bundle and the standalone executable carry
 * them (no folder is read at run time). Names sort in the order they run; a landed migration never changes.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  '2026-11-22T1200_initial_schema': initialSchema,
  '2026-11-22T1600_report_runs': reportRuns,
  '2026-11-22T1700_webhook_deliveries': webhookDeliveries,
  '2026-11-23T1200_pbx_logs': pbxLogs,
  '2026-11-23T1300_import_line_counts': importLineCounts,
  '2026-11-24T1000_queue_event_columns': queueEventColumns,
  '2026-11-25T1000_agent_aliases': agentAliases,
  '2026-11-25T1200_directory': directory,
  '2026-11-25T1300_self_service': selfService,
  '2026-11-25T1400_live_queues': liveQueues,
  '2026-11-26T1300_queue_service_level': queueServiceLevel,
  '2026-11-26T1310_lost_call_details': lostCallDetails,
  '2026-11-26T1400_console': consoleTables,
  '2026-11-27T1000_ids_never_reused': idsNeverReused,
  '2026-11-27T1200_more_ids_never_reused': moreIdsNeverReused,
  '2026-11-27T1300_pbx_imports': pbxImports,
  '2026-11-27T1400_cascade_deletes': cascadeDeletes,
  '2026-11-27T1500_login_failure_ids': loginFailureIds,
  '2026-11-27T1700_live_shared': liveShared,
  '2026-11-27T1800_several_instances': severalInstances,
};
