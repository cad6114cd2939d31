import { sql, type Kysely } from 'kysely';

/**
 * Every resource of the fixture format (docs/fixture-format.md), plus what authentication needs.
 * Frozen once landed: later changes go into new, later-dated migrations.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tenants')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('tenants_partner').on('tenants').column('partner_id').execute();

  await db.schema
    .createTable('branches')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('branches_tenant').on('branches').columns(['tenant_id', 'is_default']).execute();

  await db.schema
    .createTable('extensions')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('ext_num', 'integer', (c) => c.notNull())
    .addColumn('ext_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('peer_name', 'text', (c) => c.notNull())
    .addColumn('caller_id_number', 'text', (c) => c.notNull().defaultTo(''))
    .addUniqueConstraint('extensions_tenant_ext_num', ['tenant_id', 'ext_num'])
    .addUniqueConstraint('extensions_tenant_peer', ['tenant_id', 'peer_name'])
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('branch_id', 'integer', (c) => c.references('branches.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('token_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('user_role', 'integer', (c) => c.notNull())
    .addColumn('partner_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('permissions', 'text', (c) => c.notNull().defaultTo('[]'))
    // The profile fields of api.md §2.1, as given; strings default to "", numbers to 0.
    .addColumn('avatar_path', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('avatar_thumbnail_path', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('cover_photo', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('dark_mode', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mobile_dark_mode', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mfa_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mfa_mode', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('mfa_phone_number', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('mfa_sms_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mfa_app_secret', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('mfa_app_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mfa_email_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_totp_step', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('enable_call_notifications', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_chat_notifications', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_all_new_message_notifications', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_direct_message_notifications', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_text_notifications', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_post_call_notifications', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_mobile_text_notifications', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_mobile_call_notifications', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_mobile_chat_notifications', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_busy_lights', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_google_calendar_authorized', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_outlook_calendar_authorized', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ext_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ext_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('ext_num', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('caller_id_number', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('dnd', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('outbound_record', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('peer_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('peer_secret', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('enable_meetings', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_transcription', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX users_email ON users (email COLLATE NOCASE)`.execute(db);
  await db.schema.createIndex('users_tenant').on('users').column('tenant_id').execute();

  await db.schema
    .createTable('queues')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('log_name', 'text', (c) => c.notNull().unique())
    .execute();
  await db.schema.createIndex('queues_tenant').on('queues').column('tenant_id').execute();

  await db.schema
    .createTable('phone_numbers')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('branch_id', 'integer', (c) => c.notNull().references('branches.id'))
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('registered_cnam', 'text')
    .addColumn('di_comment_name', 'text')
    .addColumn('recording', 'text')
    .addColumn('fax', 'text')
    .addColumn('fax_email', 'text')
    .addColumn('fax_store', 'integer')
    .addColumn('name_prefix', 'text')
    .addColumn('unconditional_status', 'integer')
    .addColumn('email_recording', 'text')
    .addColumn('store_and_forward_number', 'text')
    .addColumn('sms_ext_id', 'integer', (c) => c.notNull().references('extensions.id'))
    .execute();
  await db.schema.createIndex('phone_numbers_tenant').on('phone_numbers').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('phone_numbers_number').on('phone_numbers').column('number').unique().execute();

  // The three destination lists of a phone number (list: routing, forwarding, sms), in order.
  await db.schema
    .createTable('phone_number_destinations')
    .addColumn('phone_number_id', 'integer', (c) => c.notNull().references('phone_numbers.id').onDelete('cascade'))
    .addColumn('list', 'text', (c) => c.notNull().check(sql`list IN ('routing', 'forwarding', 'sms')`))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('type_src', 'text', (c) => c.notNull())
    .addColumn('dest_type', 'text', (c) => c.notNull())
    .addColumn('dest_id', 'integer', (c) => c.notNull())
    .addColumn('dest_order', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('phone_number_destinations_pk', ['phone_number_id', 'list', 'position'])
    .execute();

  await db.schema
    .createTable('emergency_locations')
    // AUTOINCREMENT: the API deletes these, and an id a client still holds must never name a new record.
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('loc', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('street_num', 'text', (c) => c.notNull())
    .addColumn('postal_code', 'text', (c) => c.notNull())
    .addColumn('street_info', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('emergency_locations_tenant').on('emergency_locations').columns(['tenant_id', 'id']).execute();

  await db.schema
    .createTable('notification_groups')
    // AUTOINCREMENT: the API deletes these, and an id a client still holds must never name a new record.
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('location_id', 'integer', (c) => c.notNull().references('emergency_locations.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('peer_name', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notification_groups_location').on('notification_groups').columns(['location_id', 'position']).execute();

  await db.schema
    .createTable('call_campaigns')
    // AUTOINCREMENT: the API deletes these, and an id a client still holds must never name a new record.
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('date_start', 'text')
    .addColumn('date_end', 'text')
    .addColumn('caller_id', 'text')
    .addColumn('call_delay', 'integer')
    .addColumn('state', 'text')
    .addColumn('lastrun', 'text')
    .addColumn('dialtimeout', 'integer')
    .addColumn('tech', 'text')
    .addColumn('message', 'text')
    .addColumn('time_start', 'text')
    .addColumn('time_end', 'text')
    .addColumn('timezone', 'text')
    .addColumn('call_frequency', 'integer')
    .addColumn('call_hours_start', 'text')
    .addColumn('call_hours_end', 'text')
    .addColumn('recording', 'text')
    .addColumn('enable_vm_detect', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('call_campaigns_tenant').on('call_campaigns').columns(['tenant_id', 'id']).execute();

  await db.schema
    .createTable('campaign_numbers')
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('call_campaigns.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('disposition', 'text', (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('campaign_numbers_pk', ['campaign_id', 'position'])
    .execute();

  // The three destination lists of a campaign (list: destinations, match, notMatch), in order.
  await db.schema
    .createTable('campaign_destinations')
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('call_campaigns.id').onDelete('cascade'))
    .addColumn('list', 'text', (c) => c.notNull().check(sql`list IN ('destinations', 'match', 'notMatch')`))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('type_src', 'text', (c) => c.notNull())
    .addColumn('dest_type', 'text', (c) => c.notNull())
    .addColumn('dest_id', 'integer', (c) => c.notNull())
    .addColumn('dest_order', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('campaign_destinations_pk', ['campaign_id', 'list', 'position'])
    .execute();

  await db.schema
    .createTable('webhooks')
    // AUTOINCREMENT: the API deletes these, and an id a client still holds must never name a new record.
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('username', 'text')
    .addColumn('password', 'text')
    .addColumn('authtoken', 'text')
    // Standard Webhooks signing secret (whsec_…), generated per webhook.
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_tenant').on('webhooks').columns(['tenant_id', 'id']).execute();

  await db.schema
    .createTable('saved_filters')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('api_url', 'text', (c) => c.notNull())
    .addColumn('module', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('scheduled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('recipients', 'text')
    .addColumn('frequency', 'text')
    .addColumn('error', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error_description', 'text')
    .addColumn('query_params', 'text')
    .addColumn('post_params', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('saved_filters_tenant').on('saved_filters').columns(['tenant_id', 'id']).execute();

  // An open MFA challenge (decisions.md §4): 5 minutes, 5 wrong codes. Only hashes are stored.
  await db.schema
    .createTable('mfa_challenges')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .execute();

  // Failed logins, per e-mail and per client address, for the throttle of decisions.md §4.
  await db.schema
    .createTable('login_failures')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_failures_key_at').on('login_failures').columns(['key', 'at']).execute();
}
