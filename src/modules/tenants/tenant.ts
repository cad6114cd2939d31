export interface TenantInput {
  id?: number;
  name: string;
  partnerId?: number;
}
