import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('products')
export class Product {
  @PrimaryColumn('text') id!: string;
  @Column('text') name!: string;
  @Column('text', { name: 'invite_url', nullable: true }) inviteUrl!: string | null;
  @Column('text', { name: 'signup_url', nullable: true }) signupUrl!: string | null;
  @Column('int', { name: 'referral_places', default: 1 }) referralPlaces!: number;
  /** The name mails are sent under; the product's name when unset. */
  @Column('text', { name: 'sender_name', nullable: true }) senderName!: string | null;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
}
