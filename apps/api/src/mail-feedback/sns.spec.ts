import { SnsMessage, stringToSign } from './sns';

const NOTIFICATION: SnsMessage = {
  Type: 'Notification',
  MessageId: 'da41e39f-ea4d-435a-b922-c6aae3915ebe',
  TopicArn: 'arn:aws:sns:us-west-2:123456789012:MyTopic',
  Message: 'test message',
  Timestamp: '2012-04-25T21:49:25.719Z',
  SignatureVersion: '1',
  Signature: 'EXAMPLE',
  SigningCertURL: 'https://sns.us-west-2.amazonaws.com/SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem',
};

describe(stringToSign.name, () => {
  it('a notification signs Message, MessageId, Timestamp, TopicArn and Type, each name and value on its own line', () => {
    expect(stringToSign(NOTIFICATION)).toBe(
      'Message\ntest message\nMessageId\nda41e39f-ea4d-435a-b922-c6aae3915ebe\nTimestamp\n2012-04-25T21:49:25.719Z\nTopicArn\narn:aws:sns:us-west-2:123456789012:MyTopic\nType\nNotification\n',
    );
  });

  it('a notification with a Subject signs it after MessageId', () => {
    expect(stringToSign({ ...NOTIFICATION, Subject: 'Hi' })).toContain('MessageId\nda41e39f-ea4d-435a-b922-c6aae3915ebe\nSubject\nHi\nTimestamp\n');
  });

  it('a subscription confirmation signs SubscribeURL and Token, never Subject', () => {
    const confirmation: SnsMessage = { ...NOTIFICATION, Type: 'SubscriptionConfirmation', Subject: 'ignored', SubscribeURL: 'https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription', Token: 't0k3n' };
    expect(stringToSign(confirmation)).toBe(
      'Message\ntest message\nMessageId\nda41e39f-ea4d-435a-b922-c6aae3915ebe\nSubscribeURL\nhttps://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription\nTimestamp\n2012-04-25T21:49:25.719Z\nToken\nt0k3n\nTopicArn\narn:aws:sns:us-west-2:123456789012:MyTopic\nType\nSubscriptionConfirmation\n',
    );
  });
});
