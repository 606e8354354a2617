import { Migration } from '@mikro-orm/migrations';

/**
 * `import_files.upload`: which upload a stored file is. Sending a file again replaces it (that is how a broken upload
 * resumes), but two uploads of one name at once each went on writing chunks into whichever row stood: a duplicate
 * chunk answered 500, or the first upload's last step marked the second's half-written file complete. Each upload
 * now writes and completes only its own row (apps/api/src/features/imports/import-files.ts).
 */
export class Migration20270106090000_import_upload extends Migration {
  override name = 'Migration20270106090000_import_upload';

  override up(): void | Promise<void> {
    this.addSql(`alter table "import_files" add column if not exists "upload" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "import_files" drop column if exists "upload";`);
  }
}
