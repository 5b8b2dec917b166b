import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Locale } from '../../i18n/locales';
import type { MailKind } from '../../templates/variables';

/** A product's own subject, text and HTML for one kind of mail; locale null: for every language without its own. */
@Entity('mail_templates')
export class MailTemplate {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'product_id' }) productId!: string;
  @Column('text') kind!: MailKind;
  @Column('text', { nullable: true }) locale!: Locale | null;
  @Column('text') subject!: string;
  @Column('text') text!: string;
  @Column('text') html!: string;
  /** A change here is what makes a mailer compile the template again. */
  @Column('timestamp with time zone', { name: 'updated_at', precision: 3 }) updatedAt!: Date;
}
