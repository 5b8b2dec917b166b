import { Answers, AnswersFrom, Attribution, checkAnswers, preparedQuery, Question } from '@app/shared';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';

/** What a sign-up brings beside its address: answers to the product's questions and where it came from. */
export interface SignupDetails {
  answers: unknown;
  answersFrom: AnswersFrom;
  attribution: Attribution | null;
}

/** A sign-up's answers and attribution as checked, null when there is nothing to keep. */
export type Details = { answers: Answers | null; attribution: Attribution | null };

/**
 * A product's questions as read, with the hash of their stored text that a statement compares (not the
 * questions themselves, which JSON in JavaScript may not give back as stored, e.g. a long number).
 */
export type QuestionsRead = { questions: Question[]; version: string | null };

/** The version of a product row's questions, in SQL. */
export const QUESTIONS_VERSION = `md5(questions::text)`;

/** How many products' questions a process keeps. */
const KEPT = 10_000;

/**
 * The questions this process last read of each product. A sign-up is checked against them, and its
 * statement writes only while they are still the product's (SignupsService.write), so that a question
 * added or removed a moment ago, in any process, is asked at the next sign-up as when they were read
 * on every sign-up; the read is left to the first sign-up, a refusal (checked again against a read)
 * and a copy found stale by the statement.
 */
export class ProductQuestions {
  private readonly seen = new LRUCache<string, QuestionsRead>({ max: KEPT });

  /**
   * The answers checked against the questions as this process knows them, or as read now when they
   * refuse them or `read` (a sign-up that may be dropped runs no statement to find them stale); the
   * 400 invalid_request naming a question.
   */
  async checked(db: DataSource, productId: string, details: SignupDetails, read: boolean): Promise<{ questions: QuestionsRead; details: Details }> {
    let questions = (!read && this.seen.get(productId)) || (await this.read(db, productId));
    let checked = checkedDetails(questions.questions, details);
    if ('refusal' in checked && !read) checked = checkedDetails((questions = await this.read(db, productId)).questions, details);
    if ('refusal' in checked) throw checked.refusal;
    return { questions, details: checked };
  }

  private async read(db: DataSource, productId: string): Promise<QuestionsRead> {
    const [product] = await preparedQuery<QuestionsRead>(db, `SELECT questions, ${QUESTIONS_VERSION} AS version FROM products WHERE id = $1`, [productId]);
    return this.noted(productId, product ?? { questions: [], version: null });
  }

  /** The product's questions as a statement found them. */
  noted(productId: string, questions: QuestionsRead): QuestionsRead {
    this.seen.set(productId, questions);
    return questions;
  }
}

/**
 * The answers checked against the product's questions, or the 400 invalid_request naming the question.
 * Null when there is nothing to keep, so that most sign-ups write no details row.
 */
export function checkedDetails(questions: Question[], details: SignupDetails): Details | { refusal: ApiError } {
  const checked = checkAnswers(questions, details.answers, details.answersFrom);
  if ('problem' in checked) {
    const param = checked.problem.key === null ? 'answers' : `answers.${checked.problem.key}`;
    return { refusal: new ApiError('invalid_request', `body field ${param}: ${checked.problem.message}.`, { param }) };
  }
  return { answers: Object.keys(checked.answers).length ? checked.answers : null, attribution: details.attribution };
}
