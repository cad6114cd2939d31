import common from '../schemas/common.json';

/*
 * The text rules of schemas/common.json, for code that checks text the schemas never saw: what the server sends to
 * the PBX (an AMI header, src/ami/ami-protocol.ts), names stored before a rule existed, names read
 * from the PBX's configuration. The patterns are the schemas' own, so that there is one rule, not two that drift.
 */

const LINE = new RegExp(common.$defs.line.pattern, 'u');
const NO_SEPARATOR = new RegExp(common.$defs.pbxName.pattern, 'u');

/** common#/$defs/line: one line of text (no control characters, line separators, bidi overrides or lone surrogates). */
export function isSingleLine(text: string): boolean {
  return LINE.test(text);
}

/** common#/$defs/pbxName: a single line without `|`, which the PBX can write as one field of its queue_log. */
export function isPbxName(text: string): boolean {
  return LINE.test(text) && NO_SEPARATOR.test(text);
}

/** Why a text breaks the rule, for a message. */
export const SINGLE_LINE_RULE = common.$defs.line['x-message'];
export const PBX_NAME_RULE = `${common.$defs.line['x-message']}; ${common.$defs.pbxName['x-message']}`;
