import type { Generated, Insertable, Selectable } from 'kysely';
import type { ReportingTables } from './schema-reporting';

/** The tables of db/migrations, as Kysely sees them. Column names are snake_case, as in SQL. */
export interface Database extends ReportingTables {
  tenants: TenantTable;
  branches: BranchTable;
  extensions: ExtensionTable;
  users: UserTable;
  queues: QueueTable;
  queue_members: QueueMemberTable;
  queue_alerts: QueueAlertTable;
  call_events_sent: CallEventSentTable;
  phone_numbers: PhoneNumberTable;
  phone_number_destinations: PhoneNumberDestinationTable;
  emergency_locations: EmergencyLocationTable;
  notification_groups: NotificationGroupTable;
  call_campaigns: CallCampaignTable;
  campaign_numbers: CampaignNumberTable;
  campaign_destinations: CampaignDestinationTable;
  webhooks: WebhookTable;
  saved_filters: SavedFilterTable;
  mfa_challenges: MfaChallengeTable;
  mfa_enrolments: MfaEnrolmentTable;
  password_resets: PasswordResetTable;
  login_failures: LoginFailureTable;
  tars_settings: TarsSettingTable;
  report_runs: ReportRunTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  console_sessions: ConsoleSessionTable;
  wallboard_links: WallboardLinkTable;
  wallboard_link_queues: WallboardLinkQueueTable;
  live_state: LiveStateTable;
  ami_actions: AmiActionTable;
}

export interface TenantTable {
  id: Generated<number>;
  name: string;
  partner_id: number;
  /** 1: every user must have MFA; one without it enrols before it gets a token. */
  mfa_required: Generated<number>;
}

export interface BranchTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  timezone: string;
  is_default: number;
}

export interface ExtensionTable {
  id: Generated<number>;
  tenant_id: number;
  ext_num: number;
  ext_name: string;
  peer_name: string;
  caller_id_number: string;
  /** JSON array of the other names the PBX writes for this agent (reporting.md R14). */
  agent_aliases: Generated<string>;
  branch_id: number | null;
}

export interface UserTable {
  id: Generated<number>;
  tenant_id: number;
  branch_id: number | null;
  email: string;
  password_hash: string;
  token_version: Generated<number>;
  user_role: number;
  partner_id: Generated<number>;
  /** JSON array of permission patterns (grants, and denials starting with "!"). */
  permissions: Generated<string>;
  avatar_path: Generated<string>;
  avatar_thumbnail_path: Generated<string>;
  timezone: Generated<string>;
  cover_photo: Generated<string>;
  dark_mode: Generated<number>;
  mobile_dark_mode: Generated<number>;
  mfa_enabled: Generated<number>;
  mfa_mode: Generated<string>;
  mfa_phone_number: Generated<string>;
  mfa_sms_verified: Generated<number>;
  mfa_app_secret: Generated<string>;
  mfa_app_verified: Generated<number>;
  mfa_email_verified: Generated<number>;
  /** The last TOTP time step that gave a successful login: an older or equal step is refused (no replay). */
  last_totp_step: Generated<number>;
  title: Generated<string>;
  enable_call_notifications: Generated<number>;
  enable_chat_notifications: Generated<number>;
  enable_all_new_message_notifications: Generated<number>;
  enable_direct_message_notifications: Generated<number>;
  enable_text_notifications: Generated<number>;
  enable_post_call_notifications: Generated<number>;
  enable_mobile_text_notifications: Generated<number>;
  enable_mobile_call_notifications: Generated<number>;
  enable_mobile_chat_notifications: Generated<number>;
  enable_busy_lights: Generated<number>;
  is_google_calendar_authorized: Generated<number>;
  is_outlook_calendar_authorized: Generated<number>;
  ext_id: Generated<number>;
  ext_name: Generated<string>;
  ext_num: Generated<number>;
  caller_id_number: Generated<string>;
  dnd: Generated<number>;
  outbound_record: Generated<number>;
  peer_name: Generated<string>;
  peer_secret: Generated<string>;
  enable_meetings: Generated<number>;
  enable_transcription: Generated<number>;
  created_at: string;
}

export interface QueueTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  log_name: string;
  number: Generated<string>;
  ring_strategy: Generated<string>;
  recording: Generated<string>;
  branch_id: number | null;
  /** Its service level threshold (Asterisk's `servicelevel`), reporting.md R19. */
  service_level_seconds: Generated<number>;
}

/** A queue's live alert thresholds (src/modules/live-queues/alerts.ts); null: that alert is off. */
export interface QueueAlertTable {
  queue_id: number;
  tenant_id: number;
  max_callers_waiting: number | null;
  max_longest_wait_seconds: number | null;
  min_service_level_percent: number | null;
  no_agent_available: number;
  email: string;
  cooldown_seconds: number;
}

/** A call event already sent (by AMI or by a queue_log line): the other source does not send it again. */
export interface CallEventSentTable {
  event_type: string;
  call_id: string;
  queue_id: number;
  sent_at: number;
}

/** A queue's static members (queues.conf `member =>`), reporting.md R15. */
export interface QueueMemberTable {
  queue_id: number;
  extension_id: number;
  penalty: Generated<number>;
}

export interface PhoneNumberTable {
  id: Generated<number>;
  tenant_id: number;
  branch_id: number;
  number: string;
  registered_cnam: string | null;
  di_comment_name: string | null;
  recording: string | null;
  fax: string | null;
  fax_email: string | null;
  fax_store: number | null;
  name_prefix: string | null;
  unconditional_status: number | null;
  email_recording: string | null;
  store_and_forward_number: string | null;
  sms_ext_id: number;
}

export type PhoneDestinationList = 'routing' | 'forwarding' | 'sms';
export type CampaignDestinationList = 'destinations' | 'match' | 'notMatch';

interface DestinationColumns {
  position: number;
  type_src: string;
  dest_type: string;
  dest_id: number;
  dest_order: number;
}

export interface PhoneNumberDestinationTable extends DestinationColumns {
  phone_number_id: number;
  list: PhoneDestinationList;
}

export interface CampaignDestinationTable extends DestinationColumns {
  campaign_id: number;
  list: CampaignDestinationList;
}

export interface EmergencyLocationTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  loc: string;
  city: string;
  state: string;
  location: string;
  street_num: string;
  postal_code: string;
  street_info: string;
}

export interface NotificationGroupTable {
  id: Generated<number>;
  location_id: number;
  position: number;
  name: string;
  number: string;
  email: string;
  peer_name: string;
}

export interface CallCampaignTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  type: string;
  date_start: string | null;
  date_end: string | null;
  caller_id: string | null;
  call_delay: number | null;
  state: string | null;
  lastrun: string | null;
  dialtimeout: number | null;
  tech: string | null;
  message: string | null;
  time_start: string | null;
  time_end: string | null;
  timezone: string | null;
  call_frequency: number | null;
  call_hours_start: string | null;
  call_hours_end: string | null;
  recording: string | null;
  enable_vm_detect: number;
}

export interface CampaignNumberTable {
  campaign_id: number;
  position: number;
  number: string;
  description: string;
  disposition: string;
}

export interface WebhookTable {
  id: Generated<number>;
  tenant_id: number;
  type: string;
  url: string;
  username: string | null;
  password: string | null;
  authtoken: string | null;
  secret: string;
  created_at: string;
  /** Set when a receiver answered 410 Gone: no more deliveries until the webhook is updated. */
  disabled_at: Generated<string | null>;
  disabled_reason: Generated<string | null>;
  /** After a rotation the old secret signs too, until previous_secret_until (epoch ms). */
  previous_secret: Generated<string | null>;
  previous_secret_until: Generated<number | null>;
}

export interface SavedFilterTable {
  id: Generated<number>;
  tenant_id: number;
  user_id: number;
  api_url: string;
  module: string;
  name: string;
  description: string | null;
  scheduled: number;
  recipients: string | null;
  frequency: string | null;
  error: Generated<number>;
  error_description: string | null;
  /** JSON text, or null. */
  query_params: string | null;
  post_params: string | null;
  created_at: string;
  deleted_at: string | null;
}

export interface MfaChallengeTable {
  token_hash: string;
  user_id: number;
  mode: string;
  code_hash: string | null;
  attempts: Generated<number>;
  expires_at: number;
}

/** An MFA mode set up and waiting for its first right code (issue 19). */
export interface MfaEnrolmentTable {
  user_id: number;
  mode: string;
  secret: string;
  phone_number: string;
  code_hash: string | null;
  expires_at: number;
}

export interface PasswordResetTable {
  token_hash: string;
  user_id: number;
  expires_at: number;
}

/** Per PBX, what the instance holding its AMI link last published (docs/design/postgresql.md §5.4). */
export interface LiveStateTable {
  pbx: string;
  version: number;
  /** Which instance wrote it: host and pid. */
  holder: string;
  /** The link's state as JSON: { state, since, reason, banner }. */
  link: string;
  last_event_at: number | null;
  snapshot_at: number | null;
  /** The queues as JSON (src/modules/live-queues/live-share.ts). */
  queues: string;
  updated_at: number;
}

export type AmiActionStatus = 'pending' | 'running' | 'done';

/** An agent action asked of an instance that does not hold the PBX's link, for the one that does. */
export interface AmiActionTable {
  id: Generated<number>;
  pbx: string;
  /** The AMI action's fields as JSON. */
  fields: string;
  status: AmiActionStatus;
  /** Asterisk's error message when it refused; null when it succeeded (or is not done). */
  error: string | null;
  requested_at: number;
  expires_at: number;
  done_at: number | null;
}

export interface LoginFailureTable {
  id: Generated<number>;
  key: string;
  at: number;
  /** A place held by an attempt still running, until this time (ms); NULL once it settled as a failure. */
  pending_until: number | null;
}

/** Settings every instance of one database shares, by name (on PostgreSQL the JWT secret, `jwt_secret`). */
export interface TarsSettingTable {
  name: string;
  value: string;
}

export type UserRow = Selectable<UserTable>;
export type NewUser = Insertable<UserTable>;

export type ReportRunStatus = 'pending' | 'running' | 'sent' | 'retry' | 'failed' | 'cancelled';

export interface ReportRunTable {
  id: Generated<number>;
  filter_id: number;
  tenant_id: number;
  kind: 'scheduled' | 'manual';
  frequency: string;
  period_start: string;
  period_end: string;
  status: ReportRunStatus;
  attempts: Generated<number>;
  /** Epoch ms: not before this. */
  next_attempt_at: number;
  /** Epoch ms: a running claim older than this was abandoned (the process died) and may be taken over. */
  lease_until: number | null;
  started_at: string | null;
  finished_at: string | null;
  rows: number | null;
  error: string | null;
  created_at: string;
}

export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'retry' | 'failed' | 'gone';

export interface WebhookDeliveryTable {
  id: Generated<number>;
  webhook_id: number;
  tenant_id: number;
  message_id: string;
  event_type: string;
  /** The JSON body, exactly as signed and sent. */
  payload: string;
  status: DeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: number;
  lease_until: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface WebhookAttemptTable {
  id: Generated<number>;
  delivery_id: number;
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** A console sign-in (its cookie carries the id; only its SHA-256 is stored). */
export interface ConsoleSessionTable {
  id: Generated<number>;
  id_hash: string;
  user_id: number;
  /** users.token_version when it began: a password change ends it. */
  token_version: number;
  /** Epoch milliseconds, as every time below. */
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

/** A read-only wallboard link (TV mode): its token reads the live state of its queues and nothing else. */
export interface WallboardLinkTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  token_hash: string;
  created_by: number | null;
  created_at: number;
  last_used_at: number | null;
}

export interface WallboardLinkQueueTable {
  link_id: number;
  queue_id: number;
  /** The queue's place on the wall screen (the order the link was made with). */
  position: number;
}
