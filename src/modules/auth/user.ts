import type { ResponseBody } from '../../http/route';
import type { UserRow } from '../../db/schema';

/** The User object of api.md §2.1 (schemas/user.json): a sign-in's, GET /v2/users/me's, the users admin's. */
export type ApiUser = ResponseBody<'user'>;

/**
 * The profile fields stored as given (everything but the keys, secrets and derived fields), API name →
 * column. Seeding and the row ↔ API mapping both use this one list.
 */
export const PROFILE_COLUMNS = {
  avatarPath: 'avatar_path',
  avatarThumbnailPath: 'avatar_thumbnail_path',
  timezone: 'timezone',
  coverPhoto: 'cover_photo',
  darkMode: 'dark_mode',
  mobileDarkMode: 'mobile_dark_mode',
  mfaEnabled: 'mfa_enabled',
  mfaMode: 'mfa_mode',
  mfaPhoneNumber: 'mfa_phone_number',
  mfaSmsVerified: 'mfa_sms_verified',
  mfaAppVerified: 'mfa_app_verified',
  mfaEmailVerified: 'mfa_email_verified',
  title: 'title',
  enableCallNotifications: 'enable_call_notifications',
  enableChatNotifications: 'enable_chat_notifications',
  enableAllNewMessageNotifications: 'enable_all_new_message_notifications',
  enableDirectMessageNotifications: 'enable_direct_message_notifications',
  enableTextNotifications: 'enable_text_notifications',
  enablePostCallNotifications: 'enable_post_call_notifications',
  enableMobileTextNotifications: 'enable_mobile_text_notifications',
  enableMobileCallNotifications: 'enable_mobile_call_notifications',
  enableMobileChatNotifications: 'enable_mobile_chat_notifications',
  enableBusyLights: 'enable_busy_lights',
  isGoogleCalendarAuthorized: 'is_google_calendar_authorized',
  isOutlookCalendarAuthorized: 'is_outlook_calendar_authorized',
  extId: 'ext_id',
  extName: 'ext_name',
  extNum: 'ext_num',
  callerIdNumber: 'caller_id_number',
  dnd: 'dnd',
  outboundRecord: 'outbound_record',
  peerName: 'peer_name',
  enableMeetings: 'enable_meetings',
  enableTranscription: 'enable_transcription',
} as const satisfies Partial<Record<keyof ApiUser, keyof UserRow>>;

export interface UserView {
  readonly branchName: string;
  readonly permissions: readonly string[];
  /** Only the caller's own authentication response carries its SIP password (decisions.md §3). */
  readonly withPeerSecret: boolean;
}

export function toApiUser(row: UserRow, view: UserView): ApiUser {
  const p = row;
  return {
    id: p.id,
    email: p.email,
    userRole: p.user_role,
    avatarPath: p.avatar_path,
    avatarThumbnailPath: p.avatar_thumbnail_path,
    tenantId: p.tenant_id,
    partnerId: p.partner_id,
    timezone: p.timezone,
    coverPhoto: p.cover_photo,
    darkMode: p.dark_mode,
    mobileDarkMode: p.mobile_dark_mode,
    otp: '',
    mfaEnabled: p.mfa_enabled,
    mfaMode: p.mfa_mode,
    mfaPhoneNumber: p.mfa_phone_number,
    mfaSmsVerified: p.mfa_sms_verified,
    mfaAppSecret: '',
    mfaAppVerified: p.mfa_app_verified,
    mfaEmailVerified: p.mfa_email_verified,
    title: p.title,
    enableCallNotifications: p.enable_call_notifications,
    enableChatNotifications: p.enable_chat_notifications,
    enableAllNewMessageNotifications: p.enable_all_new_message_notifications,
    enableDirectMessageNotifications: p.enable_direct_message_notifications,
    enableTextNotifications: p.enable_text_notifications,
    enablePostCallNotifications: p.enable_post_call_notifications,
    enableMobileTextNotifications: p.enable_mobile_text_notifications,
    enableMobileCallNotifications: p.enable_mobile_call_notifications,
    enableMobileChatNotifications: p.enable_mobile_chat_notifications,
    enableBusyLights: p.enable_busy_lights,
    isGoogleCalendarAuthorized: p.is_google_calendar_authorized,
    isOutlookCalendarAuthorized: p.is_outlook_calendar_authorized,
    extId: p.ext_id,
    extName: p.ext_name,
    extNum: p.ext_num,
    callerIdNumber: p.caller_id_number,
    dnd: p.dnd,
    outboundRecord: p.outbound_record,
    peerName: p.peer_name,
    peerSecret: view.withPeerSecret ? p.peer_secret : '',
    enableMeetings: p.enable_meetings,
    enableTranscription: p.enable_transcription,
    branchId: p.branch_id ?? 0,
    branchName: view.branchName,
    permissions: [...view.permissions],
  };
}
