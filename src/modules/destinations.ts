/** A Destination of api.md §2.4: where a call or message goes. */
export interface Destination {
  typeSrc: string;
  destType: string;
  id: number;
  order: number;
}

interface DestinationRow {
  type_src: string;
  dest_type: string;
  dest_id: number;
  dest_order: number;
  position: number;
}

export function toDestinationColumns(d: Destination, position: number): DestinationRow {
  return { type_src: d.typeSrc, dest_type: d.destType, dest_id: d.id, dest_order: d.order, position };
}

export function toDestination(row: DestinationRow): Destination {
  return { typeSrc: row.type_src, destType: row.dest_type, id: row.dest_id, order: row.dest_order };
}
